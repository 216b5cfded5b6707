package httpapi

import "net/http"

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
// has them; their tokens stop working, and the profile photo's file goes
// with the record that named it.
func (u *users) erase(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	photo, err := uc.svc.Users.EraseMember(r.Context(), uc.program, uc.userID)
	if err != nil {
		return err
	}
	u.s.DropImage(r.Context(), photo)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
