package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// rulesJSON is the earning rules on the wire, in the reference
// platform's shape: reward_points and reward_amount are its other names
// for reward_ratio and reward_milestone_amount; no tier level earns by
// rules of its own; redeeming is the redemption value (null while the
// business has none) and currency the business's currency.
func rulesJSON(r loyalty.Rules, b loyalty.Business) map[string]any {
	b.Currency = r.Currency
	return map[string]any{"data": map[string]any{
		"loyalty_type": r.LoyaltyType,
		"earning": map[string]any{"reward_ratio": r.RewardRatio, "reward_milestone_amount": r.RewardMilestoneAmount,
			"reward_points": r.RewardRatio, "reward_amount": r.RewardMilestoneAmount,
			"round_up_points": r.RoundUpPoints, "welcome_points": r.WelcomePoints,
			"tiers_earning_override": false, "tiers_earning_rules": []any{},
			"exclude": map[string]any{"tax": r.Exclude.Tax, "shipping": r.Exclude.Shipping, "discounts": r.Exclude.Discounts,
				"giftcards": r.Exclude.GiftCards, "categories": intsOrEmpty(r.Exclude.Categories)}},
		"visits":                      map[string]any{"points_per_visit": r.PointsPerVisit},
		"redeeming":                   redeemingJSON(r.Redemption),
		"currency":                    currencyJSON(b),
		"points_expire_after":         expiryJSON(r.PointsExpireAfter),
		"pending_days":                r.PendingDays,
		"time_zone":                   r.TimeZone,
		"expiry_notice_days":          r.ExpiryNoticeDays,
		"transfer_max_points_per_day": r.TransferMaxPointsPerDay,
	}}
}

// redeemingJSON is the reference's redeeming: redemption_ratio points
// are worth redemption_amount of the currency; null when not set.
func redeemingJSON(v loyalty.PointValue) any {
	if !v.Redeeming() {
		return nil
	}
	return map[string]any{"redemption_ratio": v.Points, "redemption_amount": v.Value}
}

// currencyJSON is the reference's currency object: the ISO 4217 code
// (as iso_code, and as code), the symbol in the business's locale and the
// denominator (minor units in one unit). The service knows no currency
// names, so name is null.
func currencyJSON(b loyalty.Business) map[string]any {
	code := b.CurrencyCode()
	return map[string]any{"name": nil, "symbol": format.Symbol(b), "iso_code": code, "code": code,
		"denominator": format.Denominator(b)}
}

// expiryJSON is points_expire_after: {"days": N} or {"months": N}, or
// null when points never expire.
func expiryJSON(x loyalty.PointsExpiry) any {
	if x.Never() {
		return nil
	}
	return map[string]int{x.Unit: x.Count}
}

func (s *Server) getRules(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	b, err := s.businessOf(r, rc)
	if err != nil {
		return err
	}
	rules, err := rc.svc.Transactions.Rules(r.Context(), b)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rulesJSON(rules, b))
	return nil
}

func (s *Server) patchRules(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.RulesInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b, err := s.businessOf(r, rc)
	if err != nil {
		return err
	}
	rules, err := auditedOf(s, r, rc, loyalty.AuditRulesUpdated, "Earning rules", func(svc loyalty.Services) (loyalty.Rules, error) {
		return svc.Transactions.UpdateRules(r.Context(), b, in)
	})
	if err != nil {
		return err
	}
	out := rulesJSON(rules, b)
	out["meta"] = map[string]string{"points_policy": loyalty.PointsPolicyNote}
	writeJSON(w, http.StatusOK, out)
	return nil
}
