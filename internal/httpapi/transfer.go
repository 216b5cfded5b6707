package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// sendTransfer is POST /users/{user_id}/transfers: the member sends points
// to someone by e-mail or phone.
func (u *users) sendTransfer(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	var in loyalty.TransferInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	m, err := u.membershipOf(r, uc, in.BusinessID)
	if err != nil {
		return err
	}
	t, err := uc.svc.Transfers.Send(r.Context(), m.Business, uc.userID, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewTransferJSON(t, uc.userID)})
	return nil
}

// transfers is GET /users/{user_id}/transfers: what the member sent and
// received in the key's businesses, newest first in each.
func (u *users) transfers(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	out := []loyalty.TransferJSON{}
	for _, m := range ms {
		list, err := uc.svc.Transfers.Transfers(r.Context(), m.Business, uc.userID)
		if err != nil {
			return err
		}
		for _, t := range list {
			out = append(out, loyalty.NewTransferJSON(t, uc.userID))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// recallTransfer is POST /users/{user_id}/transfers/{transfer_id}/recall:
// the sender takes back points still waiting for their receiver.
func (u *users) recallTransfer(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if err := decodeStrict(r, &struct{}{}); err != nil {
		return err
	}
	id := r.PathValue("transfer_id")
	if !loyalty.ValidID(id) {
		return loyalty.Errorf(loyalty.ENotFound, "Transfer not found.")
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	for _, m := range ms {
		t, err := uc.svc.Transfers.Recall(r.Context(), m.Business, uc.userID, id)
		if loyalty.ErrorCode(err) == loyalty.ENotFound {
			continue
		} else if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewTransferJSON(t, uc.userID)})
		return nil
	}
	return loyalty.Errorf(loyalty.ENotFound, "Transfer not found.")
}
