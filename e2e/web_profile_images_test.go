package e2e

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"regexp"
	"testing"
)

// postFiles posts a multipart form as the profile page does: the CSRF
// token first, then the fields, then the files (by field name).
func (w *webClient) postFiles(t *testing.T, path string, fields map[string]string, files map[string][]byte) *result {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.WriteField("csrf_token", w.csrf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for name, data := range files {
		p, _ := mw.CreateFormFile(name, name+".png")
		p.Write(data)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, w.base+path, &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return w.do(t, req)
}

var storedLogo = regexp.MustCompile(`id="logo" name="logo" [^>]*value="(/images/[^"]+)"`)

// TestBusinessProfileImages: the profile's logo is uploaded (a file that
// is not an image is refused beside the logo, and nothing is kept), served
// under /images/, and its address shown in the field; a new upload
// replaces it and the old file is deleted; an address typed still works.
func TestBusinessProfileImages(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.ownerConsole(t)
		owner.get(t, "/business/profile").want(t, http.StatusOK).has(t, `enctype="multipart/form-data"`, `name="logo_file"`, `name="cover_file"`)
		fields := map[string]string{"name": "Corner Cafe", "currency": "USD", "time_zone": "UTC", "brand_color": "#4338ca", "logo": "", "cover": ""}

		owner.postFiles(t, "/business/profile", fields, map[string][]byte{"logo_file": []byte("not a picture")}).
			want(t, http.StatusUnprocessableEntity).has(t, `id="logo-error"`, "JPEG, PNG, GIF or WebP")
		owner.postFiles(t, "/business/profile", fields, map[string][]byte{"logo_file": pngOf(t, 64, 64)}).want(t, http.StatusSeeOther)
		m := storedLogo.FindStringSubmatch(string(owner.get(t, "/business/profile").want(t, http.StatusOK).Body))
		if m == nil {
			t.Fatal("the profile does not show the uploaded logo's address")
		}
		first := m[1]
		if r := owner.get(t, first).want(t, http.StatusOK); r.Header.Get("Content-Type") != "image/png" {
			t.Errorf("the stored logo is served as %q", r.Header.Get("Content-Type"))
		}

		fields["logo"] = first
		owner.postFiles(t, "/business/profile", fields, map[string][]byte{"logo_file": pngOf(t, 80, 80), "cover_file": pngOf(t, 400, 100)}).
			want(t, http.StatusSeeOther)
		page := string(owner.get(t, "/business/profile").want(t, http.StatusOK).Body)
		if m := storedLogo.FindStringSubmatch(page); m == nil || m[1] == first {
			t.Errorf("after a new upload the logo is %v, want a new file", m)
		}
		owner.get(t, first).want(t, http.StatusNotFound)

		// An address typed, without a file, as before.
		fields["logo"] = "https://cdn.cafe.example/logo.png"
		owner.postFiles(t, "/business/profile", fields, nil).want(t, http.StatusSeeOther)
		owner.get(t, "/business/profile").want(t, http.StatusOK).has(t, `value="https://cdn.cafe.example/logo.png"`)
	})
}
