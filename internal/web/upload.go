package web

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// A form that uploads a file posts multipart/form-data, which the pages'
// usual 64 KiB form limit and form parsing do not fit: the file is read
// as a stream by its page. Its CSRF token must be the form's first part,
// and is checked before the page runs, like every other post's; the page
// then reads the rest of the parts from uploadParts.

// maxUpload bounds the body of an upload: the largest import file and
// its form fields.
const maxUpload = loyalty.MaxImportBytes + 1<<20

type uploadKey struct{}

// isUpload reports whether a post is a multipart upload.
func isUpload(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "multipart/form-data"
}

// openUpload checks an upload's CSRF token, its first part, and returns
// the request carrying the reader of its other parts.
func (s *Server) openUpload(w http.ResponseWriter, r *http.Request) (*http.Request, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	mr, err := r.MultipartReader()
	if err != nil {
		return r, loyalty.Errorf(loyalty.EBadRequest, "The form could not be read.")
	}
	part, err := mr.NextPart()
	if err != nil || part.FormName() != "csrf_token" {
		return r, errCSRF
	}
	tok, err := io.ReadAll(io.LimitReader(part, 256))
	if err != nil {
		return r, loyalty.Errorf(loyalty.EBadRequest, "The form could not be read.")
	}
	r.PostForm = url.Values{"csrf_token": {string(tok)}}
	if !s.validCSRF(r) {
		return r, errCSRF
	}
	return r.WithContext(context.WithValue(r.Context(), uploadKey{}, mr)), nil
}

// uploadParts returns the reader of an upload's parts after its token.
func uploadParts(r *http.Request) (*multipart.Reader, bool) {
	mr, ok := r.Context().Value(uploadKey{}).(*multipart.Reader)
	return mr, ok
}

// formValue reads a small form field of an upload.
func formValue(p *multipart.Part) (string, error) {
	b, err := io.ReadAll(io.LimitReader(p, 4096))
	return strings.TrimSpace(string(b)), err
}
