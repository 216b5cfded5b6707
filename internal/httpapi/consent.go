package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// customerConsents is GET /customers/{id}/consents: the customer's
// marketing-consent records, newest first (the reference's list).
func (s *Server) customerConsents(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	st, err := rc.svc.Consents.State(r.Context(), loyalty.Business{ID: rc.businessID}, r.PathValue("id"), loyalty.ConsentMarketing)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.ConsentListJSON(st.History)})
	return nil
}

// createConsent is POST /customers/{id}/consents: a new consent record of
// the customer, as the business's app reports it (all three channels
// named, as the reference asks).
func (s *Server) createConsent(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.ConsentInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	if in.BusinessID.Set {
		return loyalty.Invalid("business_id", "This call has no field business_id: the token names the business.")
	}
	by, err := s.appName(r, rc)
	if err != nil {
		return err
	}
	c, err := auditedOf(s, r, rc, loyalty.AuditConsentChanged, s.customerTarget(r, rc, r.PathValue("id")), func(svc loyalty.Services) (loyalty.Consent, error) {
		return svc.Consents.Change(r.Context(), loyalty.Business{ID: rc.businessID}, r.PathValue("id"), loyalty.ConsentMarketing, in,
			loyalty.ConsentFromAPI, by, true)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewConsentJSON(c)})
	return nil
}

// choiceJSON is a member's choice of one kind in one business, as the
// user API shows it.
type choiceJSON struct {
	Business  userBusinessRefJSON   `json:"business"`
	Email     bool                  `json:"allow_email"`
	SMS       bool                  `json:"allow_sms"`
	Push      bool                  `json:"allow_push"`
	UpdatedAt *string               `json:"updated_at"`
	History   []loyalty.ConsentJSON `json:"history"`
}

// userBusinessRefJSON names a business.
type userBusinessRefJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func toChoiceJSON(m loyalty.Membership, st loyalty.ConsentState) choiceJSON {
	out := choiceJSON{Business: userBusinessRefJSON{ID: m.Business.ID, Name: m.Business.Name}, Email: st.Email, SMS: st.SMS,
		Push: st.Push, History: loyalty.ConsentListJSON(st.History)}
	if len(st.History) > 0 {
		at := st.History[0].CreatedAt
		s := loyalty.FormatTime(at)
		out.UpdatedAt = &s
	}
	return out
}

// userChoices is GET /users/{user_id}/consents and
// /notification-preferences: the member's choice of kind in each of the
// key's businesses, with its history.
func (u *users) userChoices(kind string) userHandler {
	return func(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
		if _, _, err := queryNames(r, nil, nil); err != nil {
			return err
		}
		ms, err := u.memberships(r, uc)
		if err != nil {
			return err
		}
		out := []choiceJSON{}
		for _, m := range ms {
			st, err := uc.svc.Consents.State(r.Context(), m.Business, uc.userID, kind)
			if err != nil {
				return err
			}
			out = append(out, toChoiceJSON(m, st))
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": out})
		return nil
	}
}

// changeUserChoice is PATCH /users/{user_id}/consents and
// /notification-preferences: the member changes the channels named, in
// one business (business_id, which may be left out when the key opens
// one).
func (u *users) changeUserChoice(kind string) userHandler {
	return func(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
		var in loyalty.ConsentInput
		if err := decodeStrict(r, &in); err != nil {
			return err
		}
		m, err := u.membershipOf(r, uc, in.BusinessID)
		if err != nil {
			return err
		}
		if _, err := uc.svc.Consents.Change(r.Context(), m.Business, uc.userID, kind, in, loyalty.ConsentFromApp, uc.userID, false); err != nil {
			return err
		}
		st, err := uc.svc.Consents.State(r.Context(), m.Business, uc.userID, kind)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": toChoiceJSON(m, st)})
		return nil
	}
}
