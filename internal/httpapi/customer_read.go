package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

type tierLevelJSON struct {
	ID          int64         `json:"id"`
	Name        string        `json:"name"`
	ReachSpend  loyalty.Money `json:"reach_spend"`
	ReachVisits int64         `json:"reach_visits"`
	ReachPoints int64         `json:"reach_points"`
}

type tierJSON struct {
	ID                 int64           `json:"id"`
	TiersSequence      []string        `json:"tiers_sequence"`
	TiersRelation      int             `json:"tiers_relation"`
	ResetType          int             `json:"reset_type"`
	ResetPeriodMonth   int             `json:"reset_period_month"`
	BasePreviousPeriod int             `json:"base_previous_period"`
	Enabled            bool            `json:"enabled"`
	TierLevels         []tierLevelJSON `json:"tier_levels,omitempty"`
}

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

func toTierLevelJSON(l loyalty.TierLevel) tierLevelJSON {
	return tierLevelJSON{ID: l.ID, Name: l.Name, ReachSpend: l.ReachSpend, ReachVisits: l.ReachVisits, ReachPoints: l.ReachPoints}
}

func toTierJSON(t loyalty.Tier, withLevels bool) tierJSON {
	out := tierJSON{ID: t.ID, TiersSequence: []string{}, TiersRelation: t.TiersRelation, ResetType: t.ResetType,
		ResetPeriodMonth: t.ResetPeriodMonth, BasePreviousPeriod: t.BasePreviousPeriod, Enabled: t.Enabled}
	for _, l := range t.Levels {
		out.TiersSequence = append(out.TiersSequence, l.Name)
		if withLevels {
			out.TierLevels = append(out.TierLevels, toTierLevelJSON(l))
		}
	}
	if withLevels && out.TierLevels == nil {
		out.TierLevels = []tierLevelJSON{}
	}
	return out
}

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
		// Progress comes from the ledger, which the engine adds; until a
		// customer has a level there is none to show.
		if include["tier_level"] {
			included["tier_level"] = nil
		}
		if include["tier_progress"] {
			included["tier_progress"] = nil
		}
	}
	if include["referral_programs"] {
		progs, err := s.Store.ReferralPrograms(r.Context(), rc.businessID)
		if err != nil {
			return err
		}
		list := make([]referralProgramJSON, len(progs))
		for i, p := range progs {
			list[i] = referralProgramJSON{ID: p.ID, RuleName: p.RuleName, CondMinAmount: p.CondMinAmount,
				RefereeEarns: p.RefereeEarns, RefererEarns: p.RefererEarns, ExpiresIn: p.ExpiresIn,
				Enabled: p.Enabled, LinkReferralEnabled: p.LinkReferralEnabled}
			if p.LinkReferralEnabled {
				link := baseURL(r) + "/referrals/" + strconv.FormatInt(p.ID, 10) + "?referrer_id=" + url.QueryEscape(c.ID)
				list[i].ReferralLink = &link
			}
		}
		included["referral_programs"] = list
	}
	resp["included"] = included
	writeJSON(w, http.StatusOK, resp)
	return nil
}
