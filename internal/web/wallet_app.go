package web

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"sync"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// A wallet installs as a web app: its manifest names the business and
// its colour, and its icons are drawn here from the brand colour (a
// white ring on it, the shape of a stamp), so nothing is fetched.

// walletIconSizes are the icons' sizes, in pixels.
var walletIconSizes = []int{192, 512}

// walletManifest answers the wallet's web app manifest.
func (s *Server) walletManifest(w http.ResponseWriter, r *http.Request) {
	b, err := s.walletBusiness(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	base := walletBase(b)
	theme := "#4338ca"
	if st := newBrandStyle(b.Profile.BrandColor); st != nil {
		theme = string(st.Brand)
	}
	type icon struct {
		Src     string `json:"src"`
		Sizes   string `json:"sizes"`
		Type    string `json:"type"`
		Purpose string `json:"purpose"`
	}
	var icons []icon
	for _, n := range walletIconSizes {
		sz := strconv.Itoa(n)
		icons = append(icons, icon{Src: base + "/icons/" + sz + ".png", Sizes: sz + "x" + sz, Type: "image/png", Purpose: "any maskable"})
	}
	body, _ := json.Marshal(map[string]any{
		"id": base, "name": b.Name() + " rewards", "short_name": b.Name(), "start_url": base, "scope": base,
		"display": "standalone", "background_color": "#ffffff", "theme_color": theme, "icons": icons,
	})
	w.Header().Set("Content-Type", "application/manifest+json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(body)
}

// walletIcon answers one of the wallet's icons, icons/{size}.png.
func (s *Server) walletIcon(w http.ResponseWriter, r *http.Request) {
	b, err := s.walletBusiness(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	size := 0
	for _, n := range walletIconSizes {
		if r.PathValue("size") == strconv.Itoa(n)+".png" {
			size = n
		}
	}
	if size == 0 {
		s.fail(w, r, loyalty.Errorf(loyalty.ENotFound, "Not found."))
		return
	}
	colour := b.Profile.BrandColor
	if newBrandStyle(colour) == nil {
		colour = "#4338ca"
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(walletIconPNG(colour, size))
}

var walletIcons sync.Map // colour and size → PNG

// walletIconPNG draws the icon of a brand colour (#rrggbb) at size.
func walletIconPNG(colour string, size int) []byte {
	key := colour + strconv.Itoa(size)
	if b, ok := walletIcons.Load(key); ok {
		return b.([]byte)
	}
	r, g, bl, _ := parseHex(colour)
	bg := color.RGBA{uint8(r * 255), uint8(g * 255), uint8(bl * 255), 255}
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	c := float64(size) / 2
	// The ring stays inside the maskable safe zone (a circle of 40% radius).
	outer, inner := 0.28*float64(size), 0.18*float64(size)
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			d2 := dx*dx + dy*dy
			if d2 <= outer*outer && d2 >= inner*inner {
				img.Set(x, y, color.White)
			} else {
				img.Set(x, y, bg)
			}
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	walletIcons.Store(key, buf.Bytes())
	return buf.Bytes()
}
