package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Verification status codes of user_emails and user_phone_numbers.
const (
	statusNotVerified = 32
	statusVerified    = 33
)

// userEmailJSON is an item of the user_emails include.
type userEmailJSON struct {
	Email      string `json:"email"`
	StatusCode int    `json:"status_code"`
	StatusText string `json:"status_text"`
	CreatedAt  string `json:"created_at"`
}

// userPhoneJSON is an item of the user_phone_numbers include.
type userPhoneJSON struct {
	Phone       string `json:"phone"`
	CountryCode string `json:"country_code"`
	StatusCode  int    `json:"status_code"`
	StatusText  string `json:"status_text"`
	CreatedAt   string `json:"created_at"`
}

// contactsJSON returns the user_emails and user_phone_numbers lists.
func contactsJSON(p loyalty.Person) ([]userEmailJSON, []userPhoneJSON) {
	emails, phones := []userEmailJSON{}, []userPhoneJSON{}
	created := loyalty.FormatTime(p.CreatedAt)
	if p.Email != "" {
		e := userEmailJSON{Email: p.Email, StatusCode: statusNotVerified, StatusText: "EMAIL_NOT_VERIFIED", CreatedAt: created}
		if !p.EmailVerifiedAt.IsZero() {
			e.StatusCode, e.StatusText = statusVerified, "EMAIL_VERIFIED"
		}
		emails = append(emails, e)
	}
	if p.Phone != "" {
		ph := userPhoneJSON{Phone: p.Phone, CountryCode: p.CountryCode, StatusCode: statusNotVerified,
			StatusText: "PHONE_NOT_VERIFIED", CreatedAt: created}
		if !p.PhoneVerifiedAt.IsZero() {
			ph.StatusCode, ph.StatusText = statusVerified, "PHONE_VERIFIED"
		}
		phones = append(phones, ph)
	}
	return emails, phones
}

// listUsers is GET /users, which the spec declares not implemented.
func (u *users) listUsers(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, err := loyalty.ParseListQuery(r.URL.Query(), loyalty.ListSpec{DefaultPerPage: 100}); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": []any{}})
	return nil
}

func (u *users) createUser(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	var in loyalty.UserInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := uc.svc.Users.Register(r.Context(), uc.program, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewUserJSON(p)})
	return nil
}

func (u *users) getUser(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	include, _, err := queryNames(r, loyalty.UserIncludes, nil)
	if err != nil {
		return err
	}
	p, err := uc.svc.Users.Person(r.Context(), uc.userID)
	if err != nil {
		return err
	}
	return u.writeUser(w, r, uc, p, include)
}

// writeUser answers with a user and the related objects of include.
func (u *users) writeUser(w http.ResponseWriter, r *http.Request, uc *userCtx, p loyalty.Person, include map[string]bool) error {
	v, err := uc.svc.Users.View(r.Context(), uc.program, p, include)
	if err != nil {
		return err
	}
	resp := map[string]any{"data": loyalty.NewUserJSON(v.Person)}
	if len(include) > 0 {
		resp["included"] = userIncluded(uc, v, include)
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

func (u *users) updateUser(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	include, _, err := queryNames(r, loyalty.UserIncludes, nil)
	if err != nil {
		return err
	}
	var in loyalty.UserInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	ch, err := uc.svc.Users.Update(r.Context(), uc.program, uc.userID, in)
	if err != nil {
		return err
	}
	u.s.DropImage(r.Context(), ch.OldPhoto)
	return u.writeUser(w, r, uc, ch.Person, include)
}

func (u *users) verify(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	var in loyalty.VerificationInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := uc.svc.Users.Verify(r.Context(), uc.program, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewUserJSON(p)})
	return nil
}

func (u *users) resetRequest(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	var in loyalty.ResetRequestInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := uc.svc.Users.RequestReset(r.Context(), uc.program, in); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"status_code": http.StatusAccepted,
		"message":     "If the account exists, a PIN reset message is on its way.",
		"description": "Accepted",
	})
	return nil
}

func (u *users) reset(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	var in loyalty.ResetInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if err := uc.svc.Users.ResetPIN(r.Context(), uc.program, in); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
