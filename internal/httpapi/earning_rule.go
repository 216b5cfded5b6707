package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// earningRuleJSON is an earning rule as the API shows it.
type earningRuleJSON struct {
	ID         int64          `json:"id"`
	Name       string         `json:"name"`
	Enabled    bool           `json:"enabled"`
	Priority   int            `json:"priority"`
	Exclusive  bool           `json:"exclusive"`
	StartsAt   *string        `json:"starts_at"`
	EndsAt     *string        `json:"ends_at"`
	Schedule   scheduleJSON   `json:"schedule"`
	Conditions conditionsJSON `json:"conditions"`
	Effect     map[string]any `json:"effect"`
	Limits     map[string]any `json:"limits"`
	CreatedAt  string         `json:"created_at"`
	UpdatedAt  string         `json:"updated_at"`
}

type scheduleJSON struct {
	Days []string `json:"days"`
	From *string  `json:"from"`
	To   *string  `json:"to"`
}

type conditionsJSON struct {
	MinAmount   loyalty.Money `json:"min_amount"`
	Branches    []string      `json:"branches"`
	Channels    []string      `json:"channels"`
	Products    []int64       `json:"products"`
	Categories  []int64       `json:"categories"`
	MinQuantity int64         `json:"min_quantity"`
	TierLevels  []int64       `json:"tier_levels"`
	// FirstPurchase and BirthdayWithinDays: false and null when not set.
	FirstPurchase      bool `json:"first_purchase"`
	BirthdayWithinDays *int `json:"birthday_within_days"`
	// CampaignID and CampaignDays: the campaign whose gift the rule is
	// (its recipients only, for that many days), null when none.
	CampaignID   *int64 `json:"campaign_id"`
	CampaignDays *int   `json:"campaign_days"`
}

// dayNames are a schedule's days as the API names them, Monday first.
var dayNames = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

func toEarningRuleJSON(r loyalty.EarningRule) earningRuleJSON {
	out := earningRuleJSON{ID: r.ID, Name: r.Name, Enabled: r.Enabled, Priority: r.Priority, Exclusive: r.Exclusive,
		StartsAt: optionalTime(r.StartsAt), EndsAt: optionalTime(r.EndsAt),
		Schedule: scheduleJSON{Days: []string{}, From: optionalString(r.Schedule.From), To: optionalString(r.Schedule.To)},
		Conditions: conditionsJSON{MinAmount: r.Conditions.MinAmount, Branches: idsOrEmpty(r.Conditions.Branches),
			Channels: idsOrEmpty(r.Conditions.Channels), Products: intsOrEmpty(r.Conditions.Products),
			Categories: intsOrEmpty(r.Conditions.Categories), MinQuantity: r.Conditions.MinQuantity,
			TierLevels: intsOrEmpty(r.Conditions.TierLevels), FirstPurchase: r.Conditions.FirstPurchase,
			BirthdayWithinDays: r.Conditions.BirthdayWithinDays},
		Effect: map[string]any{"type": r.Effect.Type}, Limits: map[string]any{"per_customer": nil, "budget": nil},
		CreatedAt: loyalty.FormatTime(r.CreatedAt), UpdatedAt: loyalty.FormatTime(r.UpdatedAt)}
	if c := r.Conditions; c.CampaignID != 0 {
		out.Conditions.CampaignID, out.Conditions.CampaignDays = &c.CampaignID, &c.CampaignDays
	}
	for _, d := range r.Schedule.Days {
		out.Schedule.Days = append(out.Schedule.Days, dayNames[d-1])
	}
	if l := r.Limits.PerCustomer; l != nil {
		out.Limits["per_customer"] = map[string]any{"count": l.Count, "period": l.Period}
	}
	if l := r.Limits.Budget; l != nil {
		out.Limits["budget"] = map[string]any{"points": l.Count, "period": l.Period}
	}
	switch f := r.Effect; f.Type {
	case loyalty.EffectPointsPerAmount:
		out.Effect["points"], out.Effect["per_amount"], out.Effect["round_up"] = f.Points, f.PerAmount, f.RoundUp
	case loyalty.EffectMultiplier:
		out.Effect["factor"] = f.Factor
	case loyalty.EffectCoupon:
		out.Effect["offer_id"] = f.OfferID
	case loyalty.EffectStamp:
		out.Effect["punch_card_id"], out.Effect["stamps"] = f.PunchCardID, f.Stamps
	default:
		out.Effect["points"] = f.Points
	}
	return out
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func intsOrEmpty(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

func (s *Server) listEarningRules(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.EarningRuleListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.EarningRules.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]earningRuleJSON, len(list))
	for i, e := range list {
		data[i] = toEarningRuleJSON(e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("earning-rules", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) getEarningRule(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	e, err := rc.svc.EarningRules.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toEarningRuleJSON(e)})
	return nil
}

// saveEarningRule creates a rule (POST) or changes one (PUT).
func (s *Server) saveEarningRule(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.EarningRuleInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	id := r.PathValue("id")
	e, err := auditedOf(s, r, rc, saved(id), namedOrRead("Earning rule", in.Name, id, func() (string, error) {
		e, err := rc.svc.EarningRules.Get(r.Context(), tenant(rc), id)
		return e.Name, err
	}), func(svc loyalty.Services) (loyalty.EarningRule, error) {
		if id != "" {
			return svc.EarningRules.Update(r.Context(), tenant(rc), id, in)
		}
		return svc.EarningRules.Create(r.Context(), tenant(rc), in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toEarningRuleJSON(e)})
	return nil
}

func (s *Server) deleteEarningRule(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Earning rule", nameOf(func() (string, error) {
		e, err := rc.svc.EarningRules.Get(r.Context(), tenant(rc), r.PathValue("id"))
		return e.Name, err
	}), r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.EarningRules.Delete(r.Context(), tenant(rc), r.PathValue("id"))
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
