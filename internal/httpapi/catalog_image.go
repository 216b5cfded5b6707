package httpapi

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"image"
	_ "image/gif" // image.DecodeConfig reads the formats uploads may have
	_ "image/jpeg"
	_ "image/png"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// catalogImageParts are the multipart fields of POST /offers/images and
// POST /rewards/images, the size each names in the reply and in an
// offer's or reward's images, and the largest each may be (the reference
// platform's limits).
var catalogImageParts = []struct {
	field, size string
	max         int64
}{
	{"image_original", "original", 10 << 20}, {"image_large", "large", 1 << 20},
	{"image_medium", "medium", 512 << 10}, {"image_thumbnail", "thumbnail", 256 << 10},
}

// catalogImageTypes are the formats the reference platform takes for
// offer and reward images, by the type sniffed from their bytes.
var catalogImageTypes = map[string]string{"image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif"}

// Smallest dimensions of the large, medium and thumbnail sizes.
const minImageWidth, minImageHeight = 450, 264

// uploadCatalogImages is POST /offers/images and POST /rewards/images: the
// four sizes of one image, each a JPEG, PNG or GIF recognised from its
// bytes, within its size limit, the three smaller ones at least 450 x 264
// pixels. It stores them and answers their paths, which the images of an
// offer or reward then name.
func (s *Server) uploadCatalogImages(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	parts, err := readCatalogImages(w, r)
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		writeStatus(w, businessAPI, http.StatusRequestEntityTooLarge, "The upload is larger than the four images may be together.")
		return nil
	} else if err != nil {
		return err
	}
	v := loyalty.Validation{}
	exts := map[string]string{}
	for _, p := range catalogImageParts {
		data, ok := parts[p.field]
		switch {
		case !ok || len(data) == 0:
			v.Add(p.field, "The "+p.field+" file is required.")
			continue
		case int64(len(data)) > p.max:
			v.Add(p.field, "The "+p.field+" file may not be greater than "+sizeText(p.max)+".")
			continue
		}
		ext, ok := catalogImageTypes[http.DetectContentType(data)]
		if !ok {
			v.Add(p.field, "The "+p.field+" file must be a JPEG, PNG or GIF image.")
			continue
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			v.Add(p.field, "The "+p.field+" file is not a readable image.")
			continue
		}
		if p.size != "original" && (cfg.Width < minImageWidth || cfg.Height < minImageHeight) {
			v.Add(p.field, "The "+p.field+" image must be at least 450 x 264 pixels.")
		}
		exts[p.field] = ext
	}
	if err := v.Err(); err != nil {
		return err
	}
	out := map[string]string{}
	var written []string
	for _, p := range catalogImageParts {
		var rnd [8]byte
		rand.Read(rnd[:])
		name := rc.businessID + "-" + hex.EncodeToString(rnd[:]) + exts[p.field]
		if err := writeFileAtomic(s.ImageDir, name, parts[p.field]); err != nil {
			for _, n := range written {
				os.Remove(filepath.Join(s.ImageDir, n))
			}
			return err
		}
		written = append(written, name)
		out[p.size] = imagesPrefix + name
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// readCatalogImages reads the multipart fields of an image upload, each
// cut one byte past its limit so that an oversized one is recognised.
func readCatalogImages(w http.ResponseWriter, r *http.Request) (map[string][]byte, error) {
	total := int64(64 << 10)
	limits := map[string]int64{}
	for _, p := range catalogImageParts {
		total += p.max
		limits[p.field] = p.max
	}
	r.Body = http.MaxBytesReader(w, r.Body, total)
	bad := loyalty.Errorf(loyalty.EBadRequest, "The body must be multipart/form-data with the files image_original, image_large, image_medium and image_thumbnail.")
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return nil, bad
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, bad
	}
	parts := map[string][]byte{}
	for {
		part, err := mr.NextPart()
		var me *http.MaxBytesError
		switch {
		case errors.As(err, &me):
			return nil, err
		case err == io.EOF:
			return parts, nil
		case err != nil:
			return nil, loyalty.Errorf(loyalty.EBadRequest, "The multipart body is malformed.")
		}
		limit, ok := limits[part.FormName()]
		if !ok {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, limit+1))
		if errors.As(err, &me) {
			return nil, err
		} else if err != nil {
			return nil, loyalty.Errorf(loyalty.EBadRequest, "The multipart body is malformed.")
		}
		parts[part.FormName()] = data
	}
}

// sizeText writes a byte limit as the reference does (10MB, 512KB).
func sizeText(n int64) string {
	if n >= 1<<20 {
		return strconv.FormatInt(n>>20, 10) + "MB"
	}
	return strconv.FormatInt(n>>10, 10) + "KB"
}
