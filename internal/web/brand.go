package web

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"net/url"
	"strconv"
)

// brandStyle is a business's colours as the page's style sheet takes
// them: its brand colour darkened until white text on it (and it as text
// on white) reads at WCAG AA, a darker shade for hover, and a pale one.
type brandStyle struct {
	Brand, Dark, Soft template.CSS // written by hex, never from input
	Nonce             string       // the CSP nonce of the page's <style>
}

// newBrandStyle returns the style of colour (#rrggbb), or nil for none.
func newBrandStyle(colour string) *brandStyle {
	r, g, b, ok := parseHex(colour)
	if !ok {
		return nil
	}
	for i := 0; i < 20 && contrast(r, g, b, 1, 1, 1) < 4.5; i++ {
		r, g, b = r*0.9, g*0.9, b*0.9
	}
	return &brandStyle{Brand: template.CSS(hex(r, g, b)), Dark: template.CSS(hex(r*0.8, g*0.8, b*0.8)),
		Soft: template.CSS(hex(1-(1-r)*0.1, 1-(1-g)*0.1, 1-(1-b)*0.1)), Nonce: base64.RawStdEncoding.EncodeToString(randomBytes(16))}
}

func parseHex(s string) (r, g, b float64, ok bool) {
	if len(s) != 7 || s[0] != '#' {
		return 0, 0, 0, false
	}
	n, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return 0, 0, 0, false
	}
	return float64(n>>16&0xff) / 255, float64(n>>8&0xff) / 255, float64(n&0xff) / 255, true
}

func hex(r, g, b float64) string {
	c := func(v float64) int { return int(math.Round(math.Max(0, math.Min(1, v)) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", c(r), c(g), c(b))
}

// luminance is WCAG's relative luminance of an sRGB colour.
func luminance(r, g, b float64) float64 {
	lin := func(v float64) float64 {
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrast is WCAG's contrast ratio of two colours.
func contrast(r1, g1, b1, r2, g2, b2 float64) float64 {
	a, b := luminance(r1, g1, b1)+0.05, luminance(r2, g2, b2)+0.05
	return math.Max(a, b) / math.Min(a, b)
}

// imageOrigins are the origins a page's images come from, for its
// Content-Security-Policy; paths on this service need none.
func imageOrigins(addresses ...string) []string {
	var out []string
	for _, a := range addresses {
		u, err := url.Parse(a)
		if err != nil || u.Host == "" {
			continue
		}
		if o := cspOrigin(u); o != "" {
			out = append(out, o)
		}
	}
	return out
}
