package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testImage encodes a small picture in format (png, jpeg or gif).
func testImage(t *testing.T, format string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 8 {
		img.Set(i, i, color.RGBA{R: 200, G: uint8(i * 30), B: 10, A: 255})
	}
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpImage is a 1x1 lossless WebP.
var webpImage = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// TestUserImages covers the profile image: upload, fetch back byte for
// byte, replacement (the old file goes), clearing, and refused uploads.
func TestUserImages(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.userApp(t)
		u := e.register(t, e.biz.Key, map[string]any{"email": "img@example.com", "pin_code": 1234})
		c := e.asUser(t, app, e.biz.Key, "img@example.com", "1234")
		dir := filepath.Join(e.app.Config.DataDir, "images")
		files := func() int {
			names, _ := filepath.Glob(filepath.Join(dir, "*"))
			return len(names)
		}
		path := func(r *result) string {
			t.Helper()
			var out struct{ Path string }
			r.want(t, http.StatusOK).data(t, &out)
			if !strings.HasPrefix(out.Path, "/images/") {
				t.Fatalf("path %q", out.Path)
			}
			return out.Path
		}
		fetch := func(p string) *result {
			t.Helper()
			return e.get(t, p)
		}

		var last string
		for _, f := range []struct {
			name, ct, want string
			data           []byte
		}{
			{"me.png", "image/png", "image/png", testImage(t, "png")},
			// The bytes decide, not the name or the declared type.
			{"me.txt", "application/octet-stream", "image/jpeg", testImage(t, "jpeg")},
			{"me.gif", "image/gif", "image/gif", testImage(t, "gif")},
			{"me.webp", "image/webp", "image/webp", webpImage},
		} {
			p := path(c.upload(t, "me", "image", f.name, f.ct, f.data))
			got := fetch(p).want(t, http.StatusOK)
			if !bytes.Equal(got.Body, f.data) || got.Header.Get("Content-Type") != f.want {
				t.Errorf("%s: fetched %d bytes of %s, want the %d bytes uploaded as %s", f.name, len(got.Body), got.Header.Get("Content-Type"), len(f.data), f.want)
			}
			if me := c.get(t, "/users/me").want(t, http.StatusOK).user(t); deref(me.ProfilePhoto) != p {
				t.Errorf("profile_photo %s, want %s", deref(me.ProfilePhoto), p)
			}
			if last != "" {
				fetch(last).wantError(t, http.StatusNotFound)
			}
			if n := files(); n != 1 {
				t.Errorf("%d files in the image directory, want 1", n)
			}
			last = p
		}
		// By id as well as by me.
		last = path(c.upload(t, u.ID, "image", "again.png", "image/png", testImage(t, "png")))

		t.Run("refused uploads change nothing", func(t *testing.T) {
			text := []byte("just some text, not a picture\n")
			c.upload(t, "me", "image", "fake.png", "image/png", text).wantFields(t, "image")
			c.upload(t, "me", "image", "empty.png", "image/png", nil).wantFields(t, "image")
			c.upload(t, "me", "photo", "me.png", "image/png", testImage(t, "png")).wantFields(t, "image")
			big := append(testImage(t, "png"), make([]byte, 5<<20)...)
			c.upload(t, "me", "image", "big.png", "image/png", big).wantError(t, http.StatusRequestEntityTooLarge)
			c.do(t, http.MethodPost, "/users/me/images", map[string]any{"image": "x"}).wantUserError(t)
			other := e.register(t, e.biz.Key, map[string]any{"email": "img2@example.com"})
			c.upload(t, other.ID, "image", "me.png", "image/png", testImage(t, "png")).wantError(t, http.StatusForbidden)
			if me := c.get(t, "/users/me").want(t, http.StatusOK).user(t); deref(me.ProfilePhoto) != last || files() != 1 {
				t.Errorf("profile_photo %s, %d files; want %s and 1", deref(me.ProfilePhoto), files(), last)
			}
			fetch("/images/loyalty.db").wantError(t, http.StatusNotFound)
			fetch("/images/"+strings.Repeat("0", 32)+"-0000000000000000.png").wantError(t, http.StatusNotFound)
		})

		t.Run("profile_photo: only null or the current path", func(t *testing.T) {
			c.do(t, http.MethodPatch, "/users/me", map[string]any{"profile_photo": "/images/elsewhere.png"}).wantFields(t, "profile_photo")
			c.do(t, http.MethodPatch, "/users/me", map[string]any{"profile_photo": last}).want(t, http.StatusOK)
			me := c.do(t, http.MethodPatch, "/users/me", map[string]any{"profile_photo": nil}).want(t, http.StatusOK).user(t)
			if me.ProfilePhoto != nil || files() != 0 {
				t.Errorf("after clearing: profile_photo %s, %d files", deref(me.ProfilePhoto), files())
			}
			fetch(last).wantError(t, http.StatusNotFound)
			if _, err := os.Stat(dir); err != nil {
				t.Errorf("image directory: %v", err)
			}
		})
	})
}
