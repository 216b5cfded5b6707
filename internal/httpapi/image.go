package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// MaxImageSize is the largest profile image accepted.
const MaxImageSize = 5 << 20

// imageTypes are the image formats accepted, by the type sniffed from
// their bytes, with the extension they are stored under.
var imageTypes = map[string]string{
	"image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif", "image/webp": ".webp",
}

// imageName is the shape of a stored image's file name.
var imageName = regexp.MustCompile(`^[0-9a-f]{32}-[0-9a-f]{16}\.(jpg|png|gif|webp)$`)

// imagesPrefix is the path images are served under.
const imagesPrefix = "/images/"

// errTooLarge is the 413 of an oversized upload.
var errTooLarge = errors.New("image too large")

// uploadImage is POST /users/{id}/images: a multipart body whose field
// "image" holds a JPEG, PNG, GIF or WebP of at most 5 MiB, recognised
// from its bytes whatever its name or declared type says.
func (u *users) uploadImage(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	data, err := readImagePart(w, r)
	if errors.Is(err, errTooLarge) {
		writeStatus(w, userAPI, http.StatusRequestEntityTooLarge, "The image may not be greater than 5 MiB.")
		return nil
	} else if err != nil {
		return err
	}
	path, err := u.s.StoreImage(uc.userID, data)
	if err != nil {
		return err
	}
	old, err := uc.svc.Users.SetPhoto(r.Context(), uc.userID, path)
	if err != nil {
		u.s.DropImage(r.Context(), path)
		return err
	}
	u.s.DropImage(r.Context(), old)
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"path": path}})
	return nil
}

// StoreImage keeps an uploaded profile image of owner (a user's or a
// business's 32-character id): a JPEG, PNG, GIF or WebP of at most
// MaxImageSize, recognised from its bytes. It returns the path the image
// is served at, under /images/, or EInvalid naming "image".
func (s *Server) StoreImage(owner string, data []byte) (string, error) {
	switch {
	case len(data) == 0:
		return "", loyalty.Invalid("image", "The image is empty.")
	case len(data) > MaxImageSize:
		return "", loyalty.Invalid("image", "The image may not be greater than 5 MiB.")
	}
	ext, ok := imageTypes[http.DetectContentType(data)]
	if !ok {
		return "", loyalty.Invalid("image", "The image must be a JPEG, PNG, GIF or WebP file.")
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	name := owner + "-" + hex.EncodeToString(rnd[:]) + ext
	if !imageName.MatchString(name) {
		return "", loyalty.Errorf(loyalty.EInternal, "an image's owner is not an id")
	}
	if err := writeFileAtomic(s.ImageDir, name, data); err != nil {
		return "", err
	}
	return imagesPrefix + name, nil
}

// DropImage deletes a stored image that no longer belongs to anyone;
// a path that is not a stored image's (an https:// address) is left.
func (s *Server) DropImage(ctx context.Context, path string) {
	name := strings.TrimPrefix(path, imagesPrefix)
	if name == path || !imageName.MatchString(name) {
		return
	}
	if err := os.Remove(filepath.Join(s.ImageDir, name)); err != nil && !os.IsNotExist(err) {
		s.Logger.WarnContext(ctx, "could not remove an image no longer used", "name", name, "err", err)
	}
}

// readImagePart returns the bytes of the multipart field "image".
func readImagePart(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	// Room for the part headers and boundaries around the largest image.
	r.Body = http.MaxBytesReader(w, r.Body, MaxImageSize+64<<10)
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		return nil, loyalty.Errorf(loyalty.EBadRequest, "The body must be multipart/form-data with a file field named image.")
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, loyalty.Errorf(loyalty.EBadRequest, "The body must be multipart/form-data with a file field named image.")
	}
	for {
		part, err := mr.NextPart()
		var me *http.MaxBytesError
		switch {
		case errors.As(err, &me):
			return nil, errTooLarge
		case err == io.EOF:
			return nil, loyalty.Invalid("image", "The image field is required.")
		case err != nil:
			return nil, loyalty.Errorf(loyalty.EBadRequest, "The multipart body is malformed.")
		}
		if part.FormName() != "image" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, MaxImageSize+1))
		switch {
		case errors.As(err, &me) || len(data) > MaxImageSize:
			return nil, errTooLarge
		case err != nil:
			return nil, loyalty.Errorf(loyalty.EBadRequest, "The multipart body is malformed.")
		case len(data) == 0:
			return nil, loyalty.Invalid("image", "The image is empty.")
		}
		return data, nil
	}
}

// writeFileAtomic writes data to dir/name so that it appears whole.
func writeFileAtomic(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return werr
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}

// serveImage is GET /images/{name}: a stored profile image, public (its
// name is unguessable) and limited per client IP.
func (u *users) serveImage(w http.ResponseWriter, r *http.Request) {
	if !u.s.limit(w, r, userAPI, "img:ip:"+u.s.clientIP(r), u.s.Limits.User) {
		return
	}
	name := r.PathValue("name")
	if !imageName.MatchString(name) {
		writeStatus(w, userAPI, http.StatusNotFound, "Image not found.")
		return
	}
	f, err := os.Open(filepath.Join(u.s.ImageDir, name))
	if err != nil {
		writeStatus(w, userAPI, http.StatusNotFound, "Image not found.")
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		writeStatus(w, userAPI, http.StatusNotFound, "Image not found.")
		return
	}
	h := w.Header()
	for t, ext := range imageTypes {
		if strings.HasSuffix(name, ext) {
			h.Set("Content-Type", t)
		}
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=86400")
	http.ServeContent(w, r, "", st.ModTime(), f)
}
