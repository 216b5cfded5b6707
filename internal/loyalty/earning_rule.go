package loyalty

import (
	"context"
	"slices"
	"time"
)

// EarningRule is one rule of a business's earning rules (/earning-rules):
// when it applies (its dates, its weekly schedule in the business's time
// zone, its conditions on the sale) and what it gives (its effect). The
// program's own points per amount and its multiplier and bonus offers are
// evaluated with these rules by one engine (earning_engine.go).
type EarningRule struct {
	ID         int64
	BusinessID string
	Name       string
	Enabled    bool
	// Priority orders the rules, the highest first; the program's points
	// per amount and its offers stand at 0, after the rules of priority 0.
	Priority int
	// Exclusive: when the rule applies, no rule after it in that order
	// does (the program's points and offers included).
	Exclusive  bool
	StartsAt   time.Time // zero: from its creation
	EndsAt     time.Time // zero: never ends
	Schedule   RuleSchedule
	Conditions RuleConditions
	Effect     RuleEffect
	Limits     RuleLimits
	Deleted    bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// RuleDefinition is what an earning rule decides by, kept together.
type RuleDefinition struct {
	Schedule   RuleSchedule   `json:"schedule"`
	Conditions RuleConditions `json:"conditions"`
	Effect     RuleEffect     `json:"effect"`
	Limits     RuleLimits     `json:"limits"`
}

// Definition returns what the rule decides by.
func (r EarningRule) Definition() RuleDefinition {
	return RuleDefinition{Schedule: r.Schedule, Conditions: r.Conditions, Effect: r.Effect, Limits: r.Limits}
}

// SetDefinition sets what the rule decides by.
func (r *EarningRule) SetDefinition(d RuleDefinition) {
	r.Schedule, r.Conditions, r.Effect, r.Limits = d.Schedule, d.Conditions, d.Effect, d.Limits
}

// RuleSchedule is the weekly window of a rule, local time in the
// business's time zone: on Days (1 Monday to 7 Sunday; none: every day),
// from From to To ("15:04"; To not included; both empty: the whole day).
// A window whose To is not after its From runs past midnight, into the
// next day: its days name the day it opens.
type RuleSchedule struct {
	Days []int  `json:"days,omitempty"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// RuleConditions are what a sale must hold for a rule to apply. With
// Products or Categories only the basket's lines of those products or
// categories qualify, and the effect counts only them.
type RuleConditions struct {
	MinAmount   Money    `json:"min_amount,omitempty"` // of the sale's eligible amount
	Branches    []string `json:"branches,omitempty"`   // none: every branch
	Channels    []string `json:"channels,omitempty"`   // none: every channel, and none
	Products    []int64  `json:"products,omitempty"`
	Categories  []int64  `json:"categories,omitempty"`
	MinQuantity int64    `json:"min_quantity,omitempty"` // qualifying units
	// Conditions on the customer (CustomerFacts): a level of the enabled
	// tier program held, the customer's first purchase at the business
	// (at most once per customer, even for rewards at once), a sale within
	// that many days of the customer's birthday (either side).
	TierLevels         []int64 `json:"tier_levels,omitempty"`
	FirstPurchase      bool    `json:"first_purchase,omitempty"`
	BirthdayWithinDays *int    `json:"birthday_within_days,omitempty"`
	// CampaignID and CampaignDays keep the rule to the customers the
	// campaign reached (a recipient it sent to: not its holdout, not one
	// consent refused), for sales within CampaignDays days of being
	// reached. They are the campaign's gift (CampaignGift.EarningRuleID),
	// set and cleared by the campaign only (CampaignService.Save).
	CampaignID   int64 `json:"campaign_id,omitempty"`
	CampaignDays int   `json:"campaign_days,omitempty"`
}

// onCustomer reports whether the conditions ask about the customer.
func (c RuleConditions) onCustomer() bool {
	return len(c.TierLevels) > 0 || c.FirstPurchase || c.BirthdayWithinDays != nil || c.CampaignID != 0
}

// CustomerFacts are what the conditions on the customer are decided by.
type CustomerFacts struct {
	Purchased bool   // the customer has a reward for a spend already
	BirthDate string // YYYY-MM-DD, or "" when not known
	TierLevel int64  // the level held in the enabled tier program (0: none)
	// Reached is when each campaign a rule is kept to reached the
	// customer (RecipientSent); a campaign that did not is absent.
	Reached map[int64]time.Time
}

// reachedWithin reports whether at is within days of reached (a zero
// reached: never), from the moment the campaign reached the customer.
func reachedWithin(reached, at time.Time, days int) bool {
	return !reached.IsZero() && !at.Before(reached) && at.Before(reached.AddDate(0, 0, days))
}

// campaignPeriod is the period under which a campaign rule's uses are
// counted (RuleTake), for the campaign's report: the recipients who
// earned by it (CampaignService.Report).
func campaignPeriod(campaignID int64) string { return "campaign:" + itoa64(campaignID) }

// TierLevels reads the level a customer holds in the business's enabled
// tier program (0: none), when a rule asks (TransactionService).
type TierLevels interface {
	TierLevelOf(ctx context.Context, businessID, customerID string) (int64, error)
}

// birthdayWithin reports whether at's local date is within days of the
// birthday of birth (YYYY-MM-DD) in its year, the year before or after; a
// birthday of 29 February is 28 February in other years.
func birthdayWithin(birth string, at time.Time, loc *time.Location, days int) bool {
	b, err := time.Parse(time.DateOnly, birth)
	if err != nil {
		return false
	}
	y, m, d := at.In(loc).Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	for _, year := range []int{y - 1, y, y + 1} {
		bd := b.Day()
		if b.Month() == time.February && bd == 29 && time.Date(year, 2, 29, 0, 0, 0, 0, time.UTC).Month() != time.February {
			bd = 28
		}
		diff := day.Sub(time.Date(year, b.Month(), bd, 0, 0, 0, 0, time.UTC)).Hours() / 24
		if diff >= -float64(days) && diff <= float64(days) {
			return true
		}
	}
	return false
}

// Earning rule effects (RuleEffect.Type).
const (
	EffectPointsPerAmount = "points_per_amount" // Points for each PerAmount of the qualifying amount
	EffectMultiplier      = "multiplier"        // the points per amount and per item on its lines, times Factor
	EffectBonus           = "bonus"             // Points once
	EffectPointsPerItem   = "points_per_item"   // Points for each qualifying unit
	EffectCoupon          = "coupon"            // a coupon of the coupon offer OfferID, to the sale's customer
	EffectStamp           = "stamp"             // Stamps more on the punch card PunchCardID
)

// EffectTypes are the effects a rule may have, in the order the
// documentation lists them.
var EffectTypes = []string{EffectPointsPerAmount, EffectMultiplier, EffectBonus, EffectPointsPerItem, EffectCoupon, EffectStamp}

// RuleEffect is what an applying rule gives.
type RuleEffect struct {
	Type      string `json:"type"`
	Points    int64  `json:"points,omitempty"`
	PerAmount Money  `json:"per_amount,omitempty"`
	// RoundUp: a partial PerAmount earns its share of Points, rounded up.
	RoundUp bool  `json:"round_up,omitempty"`
	Factor  Money `json:"factor,omitempty"` // hundredths: 150 is ×1.5
	// OfferID is the coupon offer a coupon effect issues a coupon of.
	OfferID int64 `json:"offer_id,omitempty"`
	// PunchCardID and Stamps are the card a stamp effect stamps and how
	// many stamps it gives.
	PunchCardID int64 `json:"punch_card_id,omitempty"`
	Stamps      int64 `json:"stamps,omitempty"`
}

// gift reports whether the effect gives something other than points (a
// coupon, stamps): it gives no points, and its rule has no budget.
func (f RuleEffect) gift() bool { return f.Type == EffectCoupon || f.Type == EffectStamp }

// base reports whether the effect earns by the sale's amount or units,
// the points a multiplier multiplies.
func (f RuleEffect) base() bool {
	return f.Type == EffectPointsPerAmount || f.Type == EffectPointsPerItem
}

// Active reports whether the rule may apply at t: enabled, not deleted,
// within its dates.
func (r EarningRule) Active(t time.Time) bool {
	return r.Enabled && !r.Deleted && !r.StartsAt.After(t) && (r.EndsAt.IsZero() || r.EndsAt.After(t))
}

// InSchedule reports whether t, local time in loc, is in the rule's
// weekly window.
func (s RuleSchedule) InSchedule(t time.Time, loc *time.Location) bool {
	if s.always() {
		return true
	}
	t = t.In(loc)
	return s.open(isoWeekday(t), t.Format("15:04"))
}

// always reports whether the window is the whole week.
func (s RuleSchedule) always() bool { return len(s.Days) == 0 && s.From == "" }

// open reports whether the window holds the local time hm ("15:04") of
// the day of the week day (1 Monday to 7 Sunday).
func (s RuleSchedule) open(day int, hm string) bool {
	if s.From == "" {
		return len(s.Days) == 0 || slices.Contains(s.Days, day)
	}
	opens := len(s.Days) == 0 || slices.Contains(s.Days, day)
	if s.From < s.To {
		return opens && s.From <= hm && hm < s.To
	}
	// Past midnight: open from From today, or until To when yesterday opened it.
	yesterday := day - 1
	if yesterday == 0 {
		yesterday = 7
	}
	return opens && hm >= s.From || (len(s.Days) == 0 || slices.Contains(s.Days, yesterday)) && hm < s.To
}

// isoWeekday is t's day of the week, 1 Monday to 7 Sunday.
func isoWeekday(t time.Time) int {
	if d := int(t.Weekday()); d != 0 {
		return d
	}
	return 7
}

// EarningRuleListSpec says how GET /earning-rules is paged.
var EarningRuleListSpec = ListSpec{DefaultPerPage: 100}

// EarningRuleReader reads a business's earning rules.
type EarningRuleReader interface {
	// EarningRule returns one rule of a business, deleted or not
	// (ENotFound when none).
	EarningRule(ctx context.Context, businessID string, id int64) (EarningRule, error)
	// EarningRulePage pages the live rules of a business, oldest first.
	EarningRulePage(ctx context.Context, businessID string, q ListQuery) ([]EarningRule, int, error)
	// RuleUsers counts the customers with a use of a rule recorded in a
	// period.
	RuleUsers(ctx context.Context, ruleID int64, period string) (int, error)
}

// EarningRuleTx writes earning rules in a transaction.
type EarningRuleTx interface {
	EarningRule(ctx context.Context, businessID string, id int64) (EarningRule, error)
	// InsertEarningRule stores a new rule, setting r.ID.
	InsertEarningRule(ctx context.Context, r *EarningRule) error
	// UpdateEarningRule writes every field of a rule; a Deleted one is
	// stamped deleted at its UpdatedAt. Every change of a rule ends the
	// business's cached state (BusinessState.EarningRules).
	UpdateEarningRule(ctx context.Context, r *EarningRule) error
	// TakeRuleUse counts one more use of a rule by a customer in a
	// period, unless the count has reached max: it reports whether it
	// counted. Concurrent takes of one counter wait for each other.
	TakeRuleUse(ctx context.Context, ruleID int64, customerID, period string, max int64) (bool, error)
	// TakeRuleBudget adds points (at most max) to what a rule's budget
	// gave in a period, unless the sum would pass max: it reports whether
	// it added.
	TakeRuleBudget(ctx context.Context, ruleID int64, period string, points, max int64) (bool, error)
	// Tiers lists the tiers of a business with their levels (the levels a
	// rule may name).
	Tiers(ctx context.Context, businessID string) ([]Tier, error)
}

// EarningRuleService holds the rules of a business's earning rules.
type EarningRuleService struct {
	Store Store
}

func earningRuleNotFound() error { return Errorf(ENotFound, "Earning rule not found.") }

// Get returns one live rule.
func (s *EarningRuleService) Get(ctx context.Context, b Business, id string) (EarningRule, error) {
	rid, err := intID("earning rule", id)
	if err != nil {
		return EarningRule{}, err
	}
	r, err := s.Store.EarningRule(ctx, b.ID, rid)
	if err == nil && r.Deleted {
		err = earningRuleNotFound()
	}
	return r, err
}

// List pages the live rules, oldest first.
func (s *EarningRuleService) List(ctx context.Context, b Business, q ListQuery) ([]EarningRule, int, error) {
	return s.Store.EarningRulePage(ctx, b.ID, q)
}

// Create adds a rule: a name and an effect are required; it is enabled
// unless it says otherwise.
func (s *EarningRuleService) Create(ctx context.Context, b Business, in EarningRuleInput) (EarningRule, error) {
	r := EarningRule{BusinessID: b.ID, Enabled: true}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		r.CreatedAt, r.UpdatedAt = now, now
		if err := in.apply(ctx, tx, b, &r, true); err != nil {
			return err
		}
		return tx.InsertEarningRule(ctx, &r)
	})
	return r, err
}

// Update changes the fields sent; schedule, conditions and effect are
// each replaced whole when sent.
func (s *EarningRuleService) Update(ctx context.Context, b Business, id string, in EarningRuleInput) (EarningRule, error) {
	rid, err := intID("earning rule", id)
	if err != nil {
		return EarningRule{}, err
	}
	var out EarningRule
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		r, err := liveEarningRule(ctx, tx, b.ID, rid)
		if err != nil {
			return err
		}
		if err := in.apply(ctx, tx, b, &r, false); err != nil {
			return err
		}
		r.UpdatedAt = tx.Now()
		out = r
		return tx.UpdateEarningRule(ctx, &r)
	})
	return out, err
}

// Delete ends a rule: no reward after it is decided by it.
func (s *EarningRuleService) Delete(ctx context.Context, b Business, id string) error {
	rid, err := intID("earning rule", id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		r, err := liveEarningRule(ctx, tx, b.ID, rid)
		if err != nil {
			return err
		}
		r.Deleted, r.UpdatedAt = true, tx.Now()
		return tx.UpdateEarningRule(ctx, &r)
	})
}

// liveEarningRule reads a rule that is not deleted, in a transaction.
func liveEarningRule(ctx context.Context, tx Tx, businessID string, id int64) (EarningRule, error) {
	r, err := tx.EarningRule(ctx, businessID, id)
	if err == nil && r.Deleted {
		err = earningRuleNotFound()
	}
	return r, err
}
