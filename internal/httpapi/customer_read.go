package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// baseURL is the scheme and host the client reached us at.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) getCustomer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	include, rel, err := queryNames(r, loyalty.CustomerIncludes, loyalty.CustomerRelationships)
	if err != nil {
		return err
	}
	if rel["tier_levels"] && !include["tiers"] {
		return loyalty.Errorf(loyalty.EBadRequest, "The relationship tier_levels needs include=tiers.")
	}
	b := loyalty.Business{ID: rc.businessID, NeverExpires: rc.tenant.NeverExpires}
	v, err := rc.svc.Customers.View(r.Context(), b, r.PathValue("id"), include)
	if err != nil {
		return err
	}
	resp := customerResponse{Data: loyalty.NewCustomerJSON(v.Customer, include["balance"], rel)}
	if len(include) > 0 {
		resp.Included = customerIncluded(r, v, include, rel)
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// customerResponse is the reply of GET /customers/{id}: a struct rather
// than a map, as it is the API's most frequent read (a map's keys are
// sorted at every encoding); included is there when include named a
// section.
type customerResponse struct {
	Data     loyalty.CustomerJSON `json:"data"`
	Included map[string]any       `json:"included,omitempty"`
}

// customerIncluded is the included object of GET /customers/{id}: the
// sections include names, from the customer's view. A referral link is
// the view's path on the base URL the client reached.
func customerIncluded(r *http.Request, v loyalty.CustomerView, include, rel map[string]bool) map[string]any {
	included := map[string]any{}
	if include["balance"] {
		included["balance"] = loyalty.NewBalanceJSON(v.Customer.Balance)
	}
	if include["tiers"] {
		list := make([]tierJSON, len(v.Tiers))
		for i, t := range v.Tiers {
			list[i] = toTierJSON(t, rel["tier_levels"])
		}
		included["tiers"] = list
	}
	// Without an enabled program both are null; without a level reached,
	// tier_level is.
	var level *tierLevelJSON
	var progress *tierProgressJSON
	if st := v.Tier; st != nil {
		p := toTierProgressJSON(*st)
		progress = &p
		if st.Level != nil {
			l := toTierLevelJSON(*st.Level)
			level = &l
		}
	}
	if include["tier_level"] {
		included["tier_level"] = level
	}
	if include["tier_progress"] {
		included["tier_progress"] = progress
	}
	if include["punch_cards"] {
		included["punch_cards"] = toCustomerCardsJSON(v.PunchCards)
	}
	if include["referral_programs"] {
		list := make([]referralProgramJSON, len(v.ReferralPrograms))
		for i, cr := range v.ReferralPrograms {
			var link *string
			if cr.LinkPath != "" {
				l := baseURL(r) + cr.LinkPath
				link = &l
			}
			list[i] = toReferralProgramJSON(cr.Program, link)
		}
		included["referral_programs"] = list
	}
	return included
}
