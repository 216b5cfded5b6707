package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The business profile's form is an upload (multipart/form-data) when the
// service keeps images: its logo and cover may be files, stored like the
// customers' profile pictures (httpapi's, served under /images/), or
// https:// addresses as before.

// ImageStore keeps uploaded images (httpapi.Server does).
type ImageStore interface {
	// StoreImage keeps an image of owner and returns the path it is
	// served at; EInvalid names "image" when it is not one.
	StoreImage(owner string, data []byte) (string, error)
	// DropImage deletes a stored image; other addresses are left.
	DropImage(ctx context.Context, path string)
}

// maxProfileImage is the largest logo or cover read (httpapi refuses
// more than 5 MiB with its message).
const maxProfileImage = 5<<20 + 1

// profileImages are the files a profile post stored, by field ("logo",
// "cover"), and the refusal of one that is not an image.
type profileImages struct {
	paths   map[string]string
	refused error
}

// drop deletes the images stored for a post that was not saved.
func (p profileImages) drop(r *http.Request, images ImageStore) {
	for _, path := range p.paths {
		images.DropImage(r.Context(), path)
	}
}

// profileUpload reads a profile post: its fields, and the logo_file and
// cover_file of an upload, stored. A form without files posts as usual.
func (s *Server) profileUpload(r *http.Request, a loyalty.Actor) (url.Values, profileImages, error) {
	out := profileImages{paths: map[string]string{}}
	mr, ok := uploadParts(r)
	if !ok {
		return r.PostForm, out, nil
	}
	f := url.Values{}
	bad := loyalty.Validation{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		} else if err != nil {
			out.drop(r, s.Images)
			return nil, out, uploadFailed(err)
		}
		field := map[string]string{"logo_file": "logo", "cover_file": "cover"}[part.FormName()]
		if field == "" {
			v, err := formValue(part)
			if err != nil {
				out.drop(r, s.Images)
				return nil, out, uploadFailed(err)
			}
			f.Set(part.FormName(), v)
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, maxProfileImage))
		if err != nil {
			out.drop(r, s.Images)
			return nil, out, uploadFailed(err)
		}
		if part.FileName() == "" || len(data) == 0 || s.Images == nil {
			continue // no file chosen
		}
		path, err := s.Images.StoreImage(a.BusinessID, data)
		var e *loyalty.Error
		if errors.As(err, &e) && e.Code == loyalty.EInvalid {
			for _, msg := range e.Fields["image"] {
				bad.Add(field, msg)
			}
			continue
		} else if err != nil {
			out.drop(r, s.Images)
			return nil, out, err
		}
		out.paths[field] = path
	}
	out.refused = bad.Err()
	return f, out, loyalty.CheckValues("form field", f)
}
