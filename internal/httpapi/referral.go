package httpapi

import (
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// referralProgramJSON is a referral program on the wire (spec 2.3).
type referralProgramJSON struct {
	ID                  int64         `json:"id"`
	RuleName            string        `json:"rule_name"`
	CondMinAmount       loyalty.Money `json:"cond_min_amount"`
	RefereeEarns        int64         `json:"referee_earns"`
	RefererEarns        int64         `json:"referer_earns"`
	ExpiresIn           int64         `json:"expires_in"`
	Enabled             bool          `json:"enabled"`
	LinkReferralEnabled bool          `json:"link_referral_enabled"`
	ReferralLink        *string       `json:"referral_link"`
}

// toReferralProgramJSON is a referral program on the wire; the link is
// the customer's own (customer reads), or null.
func toReferralProgramJSON(p loyalty.ReferralProgram, link *string) referralProgramJSON {
	return referralProgramJSON{ID: p.ID, RuleName: p.RuleName, CondMinAmount: p.CondMinAmount,
		RefereeEarns: p.RefereeEarns, RefererEarns: p.RefererEarns, ExpiresIn: p.ExpiresIn,
		Enabled: p.Enabled, LinkReferralEnabled: p.LinkReferralEnabled, ReferralLink: link}
}

func writeReferralProgram(w http.ResponseWriter, p loyalty.ReferralProgram) {
	writeJSON(w, http.StatusOK, map[string]any{"data": toReferralProgramJSON(p, nil)})
}

func (s *Server) listReferralPrograms(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.ReferralProgramListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.ReferralPrograms.Page(r.Context(), loyalty.Business{ID: rc.businessID}, lq)
	if err != nil {
		return err
	}
	data := make([]referralProgramJSON, len(list))
	for i, p := range list {
		data[i] = toReferralProgramJSON(p, nil)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf("referral-programs", q, lq, len(list), total),
		"meta":   map[string]int{"total": total},
	})
	return nil
}

func (s *Server) getReferralProgram(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	// A referral program has no related resources to include.
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	id, err := programID(r, "referral program")
	if err != nil {
		return err
	}
	p, err := rc.svc.ReferralPrograms.Get(r.Context(), loyalty.Business{ID: rc.businessID}, id)
	if err != nil {
		return err
	}
	writeReferralProgram(w, p)
	return nil
}

func (s *Server) createReferralProgram(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.ReferralProgramInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := auditedOf(s, r, rc, loyalty.AuditProgramCreated, named("Referral program", in.RuleName, ""), func(svc loyalty.Services) (loyalty.ReferralProgram, error) {
		return svc.ReferralPrograms.Create(r.Context(), loyalty.Business{ID: rc.businessID}, in)
	})
	if err != nil {
		return err
	}
	writeReferralProgram(w, p)
	return nil
}

func (s *Server) updateReferralProgram(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id, err := programID(r, "referral program")
	if err != nil {
		return err
	}
	var in loyalty.ReferralProgramInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := auditedOf(s, r, rc, loyalty.AuditProgramUpdated, namedOrRead("Referral program", in.RuleName, strconv.FormatInt(id, 10), func() (string, error) {
		p, err := rc.svc.ReferralPrograms.Get(r.Context(), loyalty.Business{ID: rc.businessID}, id)
		return p.RuleName, err
	}), func(svc loyalty.Services) (loyalty.ReferralProgram, error) {
		return svc.ReferralPrograms.Update(r.Context(), loyalty.Business{ID: rc.businessID}, id, in)
	})
	if err != nil {
		return err
	}
	writeReferralProgram(w, p)
	return nil
}
