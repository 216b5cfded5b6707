package httpapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// export is GET /users/{user_id}/export: one JSON document of everything
// the service holds about the member in the key's businesses.
func (u *users) export(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	doc, err := uc.svc.Users.Export(r.Context(), uc.program, uc.userID)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="my-data.json"`)
	writeJSON(w, http.StatusOK, map[string]any{"data": doc})
	return nil
}

// erase is DELETE /users/{user_id}: the member's personal data in the
// key's businesses is erased (their balances forfeited by entries), and
// with it their account unless a business outside the key's program still
// has them; their tokens stop working.
func (u *users) erase(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	p, err := uc.svc.Users.Person(r.Context(), uc.userID)
	if err != nil {
		return err
	}
	if err := uc.svc.Users.EraseMember(r.Context(), uc.program, uc.userID); err != nil {
		return err
	}
	after, err := uc.svc.Users.Person(r.Context(), uc.userID)
	if err == nil && after.ProfilePhoto == "" && strings.HasPrefix(p.ProfilePhoto, imagesPrefix) {
		// The picture's file goes with the record that named it.
		if name := strings.TrimPrefix(p.ProfilePhoto, imagesPrefix); imageName.MatchString(name) {
			os.Remove(filepath.Join(u.s.ImageDir, name))
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
