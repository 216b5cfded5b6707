package walletpass

import (
	"bytes"
	"image"
	"image/color"
	_ "image/gif" // logos may be stored as GIF
	_ "image/jpeg"
	"image/png"
)

// The logo area of a pass, 160 by 50 points, in pixels at twice the scale.
const maxLogoW, maxLogoH = 320, 100

// Logo returns an image (PNG, JPEG or GIF) as a PNG that fits a pass's
// logo area, scaled down when larger; nil when it cannot be read (WebP,
// or not an image), and the card then shows the business's name alone.
func Logo(data []byte) []byte {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return nil
	}
	scale := min(1, float64(maxLogoW)/float64(w), float64(maxLogoH)/float64(h))
	dw, dh := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
	dst := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			dst.Set(x, y, average(src, b.Min.X+x*w/dw, b.Min.Y+y*h/dh, b.Min.X+(x+1)*w/dw, b.Min.Y+(y+1)*h/dh))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, dst); err != nil {
		return nil
	}
	return buf.Bytes()
}

// average is the mean colour of up to 4 by 4 samples of the box
// [x0,x1)×[y0,y1) of src: enough for a logo to shrink without the
// speckles of taking one pixel in many.
func average(src image.Image, x0, y0, x1, y1 int) color.Color {
	x1, y1 = max(x1, x0+1), max(y1, y0+1)
	const n = 4
	var r, g, b, a, count uint64
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			c := color.NRGBA64Model.Convert(src.At(x0+i*(x1-x0)/n, y0+j*(y1-y0)/n)).(color.NRGBA64)
			// Weight by alpha so that transparent pixels lend no colour.
			r, g, b = r+uint64(c.R)*uint64(c.A), g+uint64(c.G)*uint64(c.A), b+uint64(c.B)*uint64(c.A)
			a += uint64(c.A)
			count++
		}
	}
	if a == 0 {
		return color.NRGBA64{}
	}
	return color.NRGBA64{R: uint16(r / a), G: uint16(g / a), B: uint16(b / a), A: uint16(a / count)}
}
