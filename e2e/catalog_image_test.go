package e2e

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"net/http"
	"testing"
)

// noisyPNG is a PNG of random pixels, which does not compress: 450 x 264
// of it is larger than a thumbnail may be.
func noisyPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatalf("png: %v", err)
	}
	return b.Bytes()
}

// TestCatalogImageUpload checks what POST /offers/images and POST
// /rewards/images refuse: a missing size, a file too large for its size,
// a size under 450 x 264, bytes that are not an image, a body that is not
// multipart; and that an image's sizes must be URLs or uploaded paths.
func TestCatalogImageUpload(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		orig, large, medium, thumb := pngOf(t, 1000, 588), pngOf(t, 800, 470), pngOf(t, 606, 356), pngOf(t, 450, 264)

		a.refUpload(t, "/offers/images", [4][]byte{orig, large, medium, nil}).wantFields(t, "image_thumbnail")
		a.refUpload(t, "/rewards/images", [4][]byte{orig, large, medium, noisyPNG(t, 450, 264)}).wantFields(t, "image_thumbnail")
		a.refUpload(t, "/offers/images", [4][]byte{orig, pngOf(t, 100, 100), medium, thumb}).wantFields(t, "image_large")
		a.refUpload(t, "/offers/images", [4][]byte{[]byte("content of image..."), large, medium, thumb}).wantFields(t, "image_original")
		a.do(t, http.MethodPost, "/offers/images", map[string]any{"image_original": "x"}).wantError(t, http.StatusBadRequest)

		d := a.refUpload(t, "/rewards/images", [4][]byte{orig, large, medium, thumb}).dataOf(t)
		r := a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 5,
			"images": []any{d}})
		if im := r["images"].([]any)[0].(map[string]any); im["path"] != d["original"] || im["thumbnail"] != d["thumbnail"] {
			t.Errorf("reward image %v, uploaded %v", im, d)
		}
		a.do(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 5,
			"images": []any{map[string]any{"original": "/images/not-uploaded.png", "large": d["large"], "medium": d["medium"],
				"thumbnail": d["thumbnail"]}}}).wantFields(t, "images.0.original")
	})
}
