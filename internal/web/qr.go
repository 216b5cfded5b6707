package web

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// qrSVG draws text as a QR code in SVG, one path of dark modules on a
// white square with the quiet zone the standard asks for; "" when text
// cannot be encoded.
func qrSVG(text string) string {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return ""
	}
	bits := q.Bitmap() // with its quiet zone
	n := len(bits)
	var p strings.Builder
	for y, row := range bits {
		for x := 0; x < len(row); x++ {
			if !row[x] {
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			fmt.Fprintf(&p, "M%d %dh%dv1h-%dz", x, y, run, run)
			x += run - 1
		}
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`+
		`<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`, n, n, n, n, p.String())
}

// qrImage is text as a QR code for an <img src>: an SVG data URL, which
// the pages' Content-Security-Policy allows (img-src data:).
func qrImage(text string) templateURL {
	svg := qrSVG(text)
	if svg == "" {
		return ""
	}
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg)))
}

// templateURL is an address the templates may write into src as it is.
type templateURL = template.URL
