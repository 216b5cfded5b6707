package loyalty

import (
	"context"
	"slices"
	"strings"
	"time"
)

// EvaluateInput is the body of POST /baskets/evaluate: a reward's basket
// (or amount) as POST /transactions takes it, the customer it would be
// for (optional: without one, no targeted offer applies and no limited
// one is used up), its branch and the time it would happen at (default
// now).
type EvaluateInput struct {
	Customer Opt[CustomerRef]       `json:"customer"`
	Amount   Opt[Money]             `json:"amount"`
	Items    Opt[[]BasketItemInput] `json:"items"`
	Tax      Opt[Money]             `json:"tax"`
	Shipping Opt[Money]             `json:"shipping"`
	Channel  Opt[string]            `json:"channel"`
	Branch   Opt[StringRef]         `json:"branch"`
	At       Opt[string]            `json:"at"`
}

// Evaluation is what a basket would earn, and why: each rule that applied
// with the points it gave, each that did not with the reason.
type Evaluation struct {
	Points         int64
	EligibleAmount Money
	Applied        []Outcome
	NotApplied     []Outcome
	UnknownSKUs    []string
	Stamps         []CardStamps
	// Coupons are the coupons the sale would issue: its coupon rules',
	// and one per time a card its stamps fill would be full (known only
	// for a customer).
	Coupons []EvaluatedCoupon
}

// EvaluatedCoupon is a coupon a sale would issue: of OfferID, by the coupon
// rule RuleID or by filling the punch card PunchCardID.
type EvaluatedCoupon struct {
	OfferID     int64
	RuleID      int64
	PunchCardID int64
}

// Evaluate is the dry run of a reward: the same checks and the same
// decision (earn: the earning engine over the earning rules, the
// program's points per amount and the offers ApplicableOffers keeps) as
// POST /transactions, writing nothing (no entry, no event, no use of a
// limited offer).
func (s *TransactionService) Evaluate(ctx context.Context, b Business, in EvaluateInput) (Evaluation, error) {
	v := Validation{}
	ti := TransactionInput{Intent: Some(IntentReward), Amount: in.Amount, Items: in.Items, Tax: in.Tax, Shipping: in.Shipping,
		Channel: in.Channel}
	e := newEntry(b, "", IntentReward, time.Time{})
	rewardIntent{}.check(&ti, &e, v)
	now := s.Store.Now()
	e.CreatedAt = now
	if at, ok := in.At.Value(); ok {
		t, err := ParseTime(strings.TrimSpace(at))
		if err != nil || t.Year() < 1970 || t.Year() > 9999 {
			v.Add("at", "The at must be a date-time such as 2026-01-31T09:05:00+00:00.")
		}
		e.CreatedAt = t.UTC()
	}
	if br, ok := in.Branch.Value(); ok {
		if e.BranchID, _ = br.ID.Value(); strings.TrimSpace(e.BranchID) == "" {
			v.Add("branch.id", "The branch id is required when a branch is sent.")
		}
	}
	if err := v.Err(); err != nil {
		return Evaluation{}, err
	}
	if e.BranchID != "" {
		branches, err := s.Store.Branches(ctx, b.ID)
		if err != nil {
			return Evaluation{}, err
		}
		if !slices.ContainsFunc(branches, func(br Branch) bool { return strings.EqualFold(br.ID, e.BranchID) }) {
			return Evaluation{}, Errorf(ENotFound, "The branch does not exist.")
		}
		e.BranchID = strings.ToLower(e.BranchID)
	}
	if ref, ok := in.Customer.Value(); ok {
		id, err := s.customerOf(ctx, b, ref)
		if err != nil {
			return Evaluation{}, err
		}
		e.CustomerID = id
	}
	rules, err := rulesOf(ctx, s.Store, b)
	if err != nil {
		return Evaluation{}, err
	}
	if e.Basket != nil {
		if err := resolveBasket(ctx, s.Store, b.ID, e.Basket); err != nil {
			return Evaluation{}, err
		}
	}
	out := Evaluation{EligibleAmount: e.Amount, UnknownSKUs: []string{}}
	if e.Basket != nil {
		out.UnknownSKUs = e.Basket.UnknownSKUs
	}
	// The reward's own computation, explained.
	var skipped []SkippedOffer
	got, err := earn(ctx, s.Store, s, b, rules, &ti, &e, &skipped)
	if err != nil {
		return Evaluation{}, err
	}
	out.Points, out.Applied, out.NotApplied = e.Points, got.result.Applied, got.result.NotApplied
	if got.sale != nil {
		out.EligibleAmount = got.sale.amount
	}
	out.Stamps = got.result.Stamps
	for _, c := range got.result.Coupons {
		out.Coupons = append(out.Coupons, EvaluatedCoupon{OfferID: c.Offer.ID, RuleID: c.RuleID})
	}
	if len(out.Stamps) > 0 && e.CustomerID != "" {
		progress, err := s.Store.PunchProgress(ctx, b.ID, e.CustomerID)
		if err != nil {
			return Evaluation{}, err
		}
		for _, cs := range out.Stamps {
			_, n := cs.Card.complete(progress[cs.Card.ID].Stamps + cs.Stamps)
			for range n {
				out.Coupons = append(out.Coupons, EvaluatedCoupon{OfferID: cs.Card.RewardOfferID, PunchCardID: cs.Card.ID})
			}
		}
	}
	for _, sk := range skipped {
		out.NotApplied = append(out.NotApplied, Outcome{RuleID: offerRuleID(sk.Offer), Name: sk.Offer.Title, Reason: skipReasons[sk.Why]})
	}
	return out, nil
}

// skipReasons say why an offer did not apply, as the evaluation shows it.
var skipReasons = map[string]string{
	SkipInactive:  "not active at this time (disabled, not started or ended)",
	SkipWindow:    "outside its days and hours",
	SkipBranch:    "not offered at this branch",
	SkipTargeted:  "only for its target customers",
	SkipUsed:      "already used by the customer in its period",
	SkipRange:     "the amount is outside its purchase range",
	SkipOutranked: "a better multiplier applies",
}

// offerRuleID names an offer among an evaluation's rules.
func offerRuleID(o Offer) string { return "offer-" + itoa64(o.ID) }

// customerOf finds the active customer an evaluation names, by id (a
// dry run reads, and a look-up by e-mail or phone is made only with a
// change), or ENotFound.
func (s *TransactionService) customerOf(ctx context.Context, b Business, ref CustomerRef) (string, error) {
	id, byID, err := ref.customerID()
	if err != nil {
		return "", err
	}
	if !byID {
		return "", Invalid("customer.id", "An evaluation names its customer by id.")
	}
	if ok, err := s.Store.CustomerActive(ctx, b.ID, id); err != nil {
		return "", err
	} else if !ok {
		return "", Errorf(ENotFound, "Customer not found.")
	}
	return id, nil
}

// PreviewRule evaluates a basket as Evaluate does, with one earning rule as
// it would be once saved: the rule id names (replaced by in), or a new
// one (id empty; its outcome's rule_id is "rule-0"). The rule is checked
// as Create or Update would check it (a 422 naming the field), and
// nothing is written: the console's live preview while a rule is edited.
func (s *TransactionService) PreviewRule(ctx context.Context, b Business, id string, in EarningRuleInput, basket EvaluateInput) (Evaluation, error) {
	var rid int64
	if id != "" {
		var err error
		if rid, err = intID("earning rule", id); err != nil {
			return Evaluation{}, err
		}
	}
	var list []EarningRule
	var rules Rules
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		r := EarningRule{BusinessID: b.ID, Enabled: true}
		if rid != 0 {
			var err error
			if r, err = liveEarningRule(ctx, tx, b.ID, rid); err != nil {
				return err
			}
		}
		if err := in.apply(ctx, tx, b, &r, rid == 0); err != nil {
			return err
		}
		all, err := tx.EarningRules(ctx, b.ID)
		if err != nil {
			return err
		}
		list = slices.DeleteFunc(slices.Clone(all), func(o EarningRule) bool { return o.ID == rid && rid != 0 })
		list = append(list, r)
		rules, err = rulesOf(ctx, tx, b)
		return err
	})
	if err != nil {
		return Evaluation{}, err
	}
	state := BusinessState{Rules: rules, HasPointsOffers: true, HasPunchCards: true}
	if b.Loaded != nil {
		state = *b.Loaded
	}
	state.HasEarningRules = true
	state.SetEarningRules(list)
	b.Loaded = &state
	return s.Evaluate(ctx, b, basket)
}
