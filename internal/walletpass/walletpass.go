// Package walletpass builds and signs a member's loyalty card for the
// phone's wallets: an Apple Wallet pass (a .pkpass file, a signed zip) and
// a "Save to Google Wallet" link (a signed JWT). It draws what the domain
// gives it and signs with the keys from configuration; it knows no HTTP,
// no SQL and no rule of the business.
package walletpass

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
)

// PassData is what a member's card shows.
type PassData struct {
	BusinessID   string
	BusinessName string
	// Colour is the business's brand colour, "#rrggbb"; empty: Loyalty's
	// own (DefaultColour).
	Colour string
	// Logo is the business's logo as PNG bytes; nil: none (the card shows
	// the business's name alone).
	Logo       []byte
	MemberID   string
	MemberName string // may be empty
	Points     int64  // the member's balance of points, as the domain read it
	// Barcode is what the card's QR code holds, for the counter to scan.
	Barcode string
}

// DefaultColour is the card's colour when the business has none.
const DefaultColour = "#4338ca"

// serial names a member's card of a business, the same each time it is
// built, so that a wallet replaces the card rather than adding one.
func (d PassData) serial() string { return d.BusinessID + "-" + d.MemberID }

// validate refuses a card that would carry nothing to scan or no one.
func (d PassData) validate() error {
	switch {
	case d.BusinessID == "" || d.BusinessName == "":
		return fmt.Errorf("walletpass: the business is required")
	case d.MemberID == "":
		return fmt.Errorf("walletpass: the member is required")
	case d.Barcode == "":
		return fmt.Errorf("walletpass: the barcode payload is required")
	}
	return nil
}

// rgb is a colour read from "#rrggbb".
type rgb struct{ r, g, b uint8 }

// colours returns the card's background and the text colour that reads
// best on it (white or black, whichever contrasts more).
func (d PassData) colours() (bg, fg rgb) {
	bg, ok := parseHex(d.Colour)
	if !ok {
		bg, _ = parseHex(DefaultColour)
	}
	white, black := rgb{255, 255, 255}, rgb{0, 0, 0}
	if contrast(bg, white) >= contrast(bg, black) {
		return bg, white
	}
	return bg, black
}

func parseHex(s string) (rgb, bool) {
	if len(s) != 7 || s[0] != '#' {
		return rgb{}, false
	}
	n, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return rgb{}, false
	}
	return rgb{uint8(n >> 16), uint8(n >> 8), uint8(n)}, true
}

// css is the colour as pass.json writes it.
func (c rgb) css() string { return fmt.Sprintf("rgb(%d, %d, %d)", c.r, c.g, c.b) }

// hex is the colour as "#rrggbb".
func (c rgb) hex() string { return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b) }

// luminance is WCAG's relative luminance.
func (c rgb) luminance() float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.r) + 0.7152*lin(c.g) + 0.0722*lin(c.b)
}

// contrast is WCAG's contrast ratio of two colours.
func contrast(a, b rgb) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// square is a PNG of side pixels filled with c: the pass's icon, which
// Wallet shows in notifications and on the lock screen.
func square(side int, c rgb) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	fill := color.NRGBA{R: c.r, G: c.g, B: c.b, A: 255}
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			img.SetNRGBA(x, y, fill)
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img) // cannot fail on an in-memory image
	return buf.Bytes()
}
