package loyalty

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// String says the exclusions in a line, for the audit log.
func (x EarningExclusions) String() string {
	var parts []string
	for _, f := range []struct {
		name string
		on   bool
	}{{"tax", x.Tax}, {"shipping", x.Shipping}, {"discounts", x.Discounts}, {"giftcards", x.GiftCards}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	for _, c := range x.Categories {
		parts = append(parts, "category "+strconv.FormatInt(c, 10))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Rules are a business's earning rules.
type Rules struct {
	BusinessID            string
	LoyaltyType           string
	RewardRatio           int64 // points per milestone of spend
	RewardMilestoneAmount Money // spend that earns RewardRatio points
	RoundUpPoints         bool  // a partial milestone earns its share, rounded up
	WelcomePoints         int64 // points a new customer receives
	PointsPerVisit        int64 // points per visit, for per_visit businesses
	PointsExpireAfter     PointsExpiry
	PendingDays           int    // days a reward's points wait before they can be spent
	ExpiryNoticeDays      int    // days before points expire that their customer is told (0: never)
	TimeZone              string // the business's IANA time zone, in which days and months end
	Currency              string // the business's ISO 4217 currency code (Business.Currency)
	// Redemption is what the business says its points are worth: Points
	// points are worth Value of its currency (zero when it never said).
	Redemption PointValue
	// Exclude is what no rule earns on (PATCH /rules earning.exclude).
	Exclude EarningExclusions
	// TransferMaxPointsPerDay is the most points a member may send others
	// in a day of the business's time zone; 0 for no limit.
	TransferMaxPointsPerDay int64
}

// EarningExclusions are what no earning rule earns on, for the whole
// program: a basket's tax and shipping, its lines' discounts (a line
// earns on what was paid for it), gift-card purchases (lines whose product
// carries the tag "giftcard") and the lines of some categories. All but
// the categories are excluded unless the business says otherwise.
type EarningExclusions struct {
	Tax        bool    `json:"tax"`
	Shipping   bool    `json:"shipping"`
	Discounts  bool    `json:"discounts"`
	GiftCards  bool    `json:"giftcards"`
	Categories []int64 `json:"categories"`
}

// DefaultExclusions are the exclusions of a business that never changed
// them.
func DefaultExclusions() EarningExclusions {
	return EarningExclusions{Tax: true, Shipping: true, Discounts: true, GiftCards: true}
}

// GiftCardTag marks the products whose sale is a gift-card purchase.
const GiftCardTag = "giftcard"

// DefaultRules are the rules of a business that never changed them: one
// point per whole unit of money, one point per visit.
func DefaultRules(businessID, loyaltyType string) Rules {
	return Rules{BusinessID: businessID, LoyaltyType: loyaltyType, RewardRatio: 1, RewardMilestoneAmount: 100, PointsPerVisit: 1, TimeZone: "UTC",
		Exclude: DefaultExclusions()}
}

// PointsForSpend returns the points a spend earns before offers:
// floor(amount / milestone) × ratio, or with RoundUpPoints the exact share
// amount × ratio / milestone rounded up.
func (r Rules) PointsForSpend(amount Money) int64 {
	return pointsPerAmount(amount, r.RewardRatio, r.RewardMilestoneAmount, r.RoundUpPoints)
}

// EarningInput are the earning rules a PATCH /rules may change.
type EarningInput struct {
	RewardRatio           Opt[int64] `json:"reward_ratio"`
	RewardMilestoneAmount Opt[Money] `json:"reward_milestone_amount"`
	RoundUpPoints         Opt[bool]  `json:"round_up_points"`
	WelcomePoints         Opt[int64] `json:"welcome_points"`
	// Exclude is read strictly (excludeInput): an unknown key is refused.
	Exclude Opt[json.RawMessage] `json:"exclude"`
}

type excludeInput struct {
	Tax        Opt[bool]    `json:"tax"`
	Shipping   Opt[bool]    `json:"shipping"`
	Discounts  Opt[bool]    `json:"discounts"`
	GiftCards  Opt[bool]    `json:"giftcards"`
	Categories Opt[[]int64] `json:"categories"`
}

// RulesInput is the body of PATCH /rules: the earning rules nested under
// earning, or flat as the reference platform sends them (named by their
// flat names in errors), points per visit under visits, the redemption
// value flat as the reference sends it, and the currency. The
// reference's tier-earning fields have no counterpart here and are
// refused by name.
type RulesInput struct {
	Earning Opt[EarningInput] `json:"earning"`
	EarningInput
	Visits Opt[struct {
		PointsPerVisit Opt[int64] `json:"points_per_visit"`
	}] `json:"visits"`
	RedemptionInput
	Currency             Opt[json.RawMessage]   `json:"currency"`
	TiersEarningOverride Opt[bool]              `json:"tiers_earning_override"`
	TiersEarningRules    Opt[[]json.RawMessage] `json:"tiers_earning_rules"`
	PointsPolicyInput
}

// Apply validates in and merges it into r.
func (in RulesInput) Apply(r *Rules) error {
	v := Validation{}
	if e, ok := in.Earning.Value(); ok {
		e.apply(v, "earning.", r)
	} else if in.Earning.Null {
		v.Add("earning", "The earning rules may not be null.")
	}
	in.EarningInput.apply(v, "", r)
	in.PointsPolicyInput.apply(v, r)
	for _, f := range []struct {
		name         string
		nested, flat bool
	}{{"reward_ratio", in.Earning.V.RewardRatio.Set, in.RewardRatio.Set},
		{"reward_milestone_amount", in.Earning.V.RewardMilestoneAmount.Set, in.RewardMilestoneAmount.Set},
		{"round_up_points", in.Earning.V.RoundUpPoints.Set, in.RoundUpPoints.Set},
		{"welcome_points", in.Earning.V.WelcomePoints.Set, in.WelcomePoints.Set},
		{"exclude", in.Earning.V.Exclude.Set, in.Exclude.Set}} {
		if f.nested && f.flat {
			v.Add(f.name, "Send "+f.name+" once: flat or under earning, not both.")
		}
	}
	if vis, ok := in.Visits.Value(); ok {
		if x, ok := vis.PointsPerVisit.Value(); ok {
			if x < 0 || x > 1_000_000 {
				v.Add("visits.points_per_visit", "The points per visit must be between 0 and 1000000.")
			} else {
				r.PointsPerVisit = x
			}
		}
	}
	in.RedemptionInput.apply(v, r)
	applyCurrency(v, in.Currency, r)
	// Amounts sent are counted in the currency the rules end with.
	Business{Currency: r.Currency}.checkSent(v, map[string]Opt[Money]{"reward_milestone_amount": in.RewardMilestoneAmount,
		"earning.reward_milestone_amount": in.Earning.V.RewardMilestoneAmount, "redemption_amount": in.RedemptionAmount})
	if on, _ := in.TiersEarningOverride.Value(); on {
		v.Add("tiers_earning_override", "Earning rules per tier level are not offered here; every level earns by the business's rules.")
	}
	if rules, _ := in.TiersEarningRules.Value(); len(rules) > 0 {
		v.Add("tiers_earning_rules", "Earning rules per tier level are not offered here; leave tiers_earning_rules out.")
	}
	return v.Err()
}

// apply validates the earning rules sent and merges them into r; errors
// name each field with prefix.
func (e EarningInput) apply(v Validation, prefix string, r *Rules) {
	if x, ok := e.RewardRatio.Value(); ok {
		if x < 0 || x > 1_000_000 {
			v.Add(prefix+"reward_ratio", "The reward ratio must be between 0 and 1000000.")
		} else {
			r.RewardRatio = x
		}
	} else if e.RewardRatio.Null {
		v.Add(prefix+"reward_ratio", "The reward ratio may not be null.")
	}
	if x, ok := e.RewardMilestoneAmount.Value(); ok {
		if x <= 0 {
			v.Add(prefix+"reward_milestone_amount", "The reward milestone amount must be greater than 0.")
		} else {
			r.RewardMilestoneAmount = x
		}
	} else if e.RewardMilestoneAmount.Null {
		v.Add(prefix+"reward_milestone_amount", "The reward milestone amount may not be null.")
	}
	if x, ok := e.RoundUpPoints.Value(); ok {
		r.RoundUpPoints = x
	}
	if raw, ok := e.Exclude.Value(); ok {
		var x excludeInput
		if strictObject(v, prefix+"exclude", raw, &x) {
			for field, o := range map[string]Opt[bool]{"tax": x.Tax, "shipping": x.Shipping, "discounts": x.Discounts, "giftcards": x.GiftCards} {
				if o.Null {
					v.Add(prefix+"exclude."+field, "The "+field+" exclusion must be true or false.")
				}
			}
			r.Exclude.Tax = optOr(x.Tax, r.Exclude.Tax)
			r.Exclude.Shipping = optOr(x.Shipping, r.Exclude.Shipping)
			r.Exclude.Discounts = optOr(x.Discounts, r.Exclude.Discounts)
			r.Exclude.GiftCards = optOr(x.GiftCards, r.Exclude.GiftCards)
			if x.Categories.Set {
				r.Exclude.Categories = nil
				for _, id := range x.Categories.V {
					if !slices.Contains(r.Exclude.Categories, id) {
						r.Exclude.Categories = append(r.Exclude.Categories, id)
					}
				}
			}
		}
	} else if e.Exclude.Null {
		r.Exclude = DefaultExclusions()
	}
	if x, ok := e.WelcomePoints.Value(); ok {
		if x < 0 || x > 1_000_000_000 {
			v.Add(prefix+"welcome_points", "The welcome points must be between 0 and 1000000000.")
		} else {
			r.WelcomePoints = x
		}
	}
}

// Rules returns a business's earning rules, its defaults when it never
// changed them.
func (s *TransactionService) Rules(ctx context.Context, b Business) (Rules, error) {
	return s.Store.Rules(ctx, b)
}

// UpdateRules changes a business's earning rules.
func (s *TransactionService) UpdateRules(ctx context.Context, b Business, in RulesInput) (Rules, error) {
	var out Rules
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		r, err := tx.Rules(ctx, b)
		if err != nil {
			return err
		}
		before := r.fields()
		if err := in.Apply(&r); err != nil {
			return err
		}
		if err := checkExcludedCategories(ctx, tx, b, in, r.Exclude.Categories); err != nil {
			return err
		}
		noteChanges(s.Store, before, r.fields())
		out = r
		return tx.SaveRules(ctx, r)
	})
	return out, err
}

// optOr is the value sent, else or.
func optOr(o Opt[bool], or bool) bool {
	if x, ok := o.Value(); ok {
		return x
	}
	return or
}

// checkExcludedCategories refuses excluded categories that do not exist
// or are deleted, named by their place in what was sent.
func checkExcludedCategories(ctx context.Context, tx Tx, b Business, in RulesInput, ids []int64) error {
	field := "exclude.categories"
	if in.Earning.V.Exclude.Set {
		field = "earning.exclude.categories"
	}
	v := Validation{}
	if _, err := checkRefs(ctx, v, field, ids, func(id int64) (bool, error) {
		c, err := tx.ProductCategory(ctx, b.ID, id)
		return err == nil && !c.Deleted, notFoundOK(err)
	}); err != nil {
		return err
	}
	return v.Err()
}

// fields are the rules as the audit log records them.
func (r Rules) fields() map[string]string {
	return map[string]string{"reward_ratio": strconv.FormatInt(r.RewardRatio, 10),
		"reward_milestone_amount": r.RewardMilestoneAmount.String(), "round_up_points": strconv.FormatBool(r.RoundUpPoints),
		"welcome_points": strconv.FormatInt(r.WelcomePoints, 10), "points_per_visit": strconv.FormatInt(r.PointsPerVisit, 10),
		"redemption_ratio": strconv.FormatInt(r.Redemption.Points, 10), "redemption_amount": r.Redemption.Value.String(),
		"currency": r.Currency, "earning_exclude": r.Exclude.String()}
}
