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
	q := r.URL.Query()
	include, err := loyalty.ParseNames("include", q.Get("include"), loyalty.CustomerIncludes)
	if err != nil {
		return err
	}
	rel, err := loyalty.ParseNames("relationships", q.Get("relationships"), loyalty.CustomerRelationships)
	if err != nil {
		return err
	}
	if rel["tier_levels"] && !include["tiers"] {
		return loyalty.Errorf(loyalty.EBadRequest, "The relationship tier_levels needs include=tiers.")
	}
	c, err := s.Customers.Get(r.Context(), loyalty.Business{ID: rc.businessID}, r.PathValue("id"))
	if err != nil {
		return notFoundAs(err, "Customer not found.")
	}
	resp := map[string]any{"data": toCustomerJSON(c, include["balance"], rel)}
	if len(include) == 0 {
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	included := map[string]any{}
	if include["balance"] {
		included["balance"] = balanceJSON{Points: c.Balance.Points, Giftcard: c.Balance.Giftcard}
	}
	if include["tiers"] || include["tier_level"] || include["tier_progress"] {
		tiers, err := s.Store.Tiers(r.Context(), rc.businessID)
		if err != nil {
			return err
		}
		if include["tiers"] {
			list := make([]tierJSON, len(tiers))
			for i, t := range tiers {
				list[i] = toTierJSON(t, rel["tier_levels"])
			}
			included["tiers"] = list
		}
		if include["tier_level"] || include["tier_progress"] {
			level, progress, err := s.customerTier(r, rc.businessID, c.ID, tiers)
			if err != nil {
				return err
			}
			if include["tier_level"] {
				included["tier_level"] = level
			}
			if include["tier_progress"] {
				included["tier_progress"] = progress
			}
		}
	}
	if include["referral_programs"] {
		progs, err := s.Store.ReferralPrograms(r.Context(), rc.businessID)
		if err != nil {
			return err
		}
		list := make([]referralProgramJSON, len(progs))
		for i, p := range progs {
			var link *string
			if p.Shared() {
				l := baseURL(r) + loyalty.ReferralLinkPath(p.ID, c.ID)
				link = &l
			}
			list[i] = toReferralProgramJSON(p, link)
		}
		included["referral_programs"] = list
	}
	resp["included"] = included
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// customerTier returns the customer's level (nil when none is reached) and
// standing (nil when the business has no enabled tier program), computed
// from the ledger.
func (s *Server) customerTier(r *http.Request, businessID, customerID string, tiers []loyalty.Tier) (*tierLevelJSON, *tierProgressJSON, error) {
	t, ok := loyalty.EnabledTier(tiers)
	if !ok {
		return nil, nil, nil
	}
	st, err := s.tierService().Status(r.Context(), businessID, customerID, t)
	if err != nil {
		return nil, nil, err
	}
	progress := toTierProgressJSON(st)
	if st.Level == nil {
		return nil, &progress, nil
	}
	level := toTierLevelJSON(*st.Level)
	return &level, &progress, nil
}
