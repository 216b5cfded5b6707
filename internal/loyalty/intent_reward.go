package loyalty

import (
	"context"
	"slices"
	"strings"
	"time"
)

// rewardIntent earns points for a spend (through the earning rules and the
// active offers), for a number of visits, or as given.
type rewardIntent struct{}

func (rewardIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	e.Basket = in.basket(v)
	in.checkBasket(v, e.Basket)
	which := onlyOne(v, []string{"amount", "points", "visits"}, []bool{in.Amount.Set, in.Points.Set, in.Visits.Set})
	switch which {
	case 0:
		amount := in.positiveAmount(v)
		e.Amount, e.TierAmount, e.Visits = amount, amount, 1
	case 1:
		p, ok := in.Points.Value()
		if !ok || p <= 0 || p > maxPoints {
			v.Add("points", "The points must be a whole number greater than 0.")
		}
		e.Points, e.TierPoints, e.Visits = p, p, 1
	case 2:
		n, ok := in.Visits.Value()
		if !ok || n <= 0 || n > 1000 {
			v.Add("visits", "The visits must be a whole number between 1 and 1000.")
		}
		e.Visits = n
	}
}

func (rewardIntent) apply(ctx context.Context, s *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	var gifts Earning // the stamps and coupons the reward gives
	if !r.earned {
		rules, err := rulesOf(ctx, tx, r.b)
		if err != nil {
			return err
		}
		got, err := decideReward(ctx, tx, s, rules, r, tx.Now())
		if err != nil {
			return err
		}
		if len(got.result.Limited)+len(got.result.Takes) > 0 {
			periods := UsePeriods(e.CreatedAt, zoneOf(rules.TimeZone))
			if err := useLimits(ctx, tx, &got, periods, e); err != nil {
				return err
			}
			// The points may have been counted again without an offer used meanwhile.
			rules.settle(e)
		}
		gifts = got.result
	}
	if err := appendEntry(ctx, tx, e); err != nil {
		return err
	}
	if err := stampCards(ctx, tx, r.b, e, gifts.Stamps); err != nil {
		return err
	}
	for _, c := range gifts.Coupons {
		if err := issueCoupon(ctx, tx, r.b.ID, e, c.Offer, 0); err != nil {
			return err
		}
	}
	if !e.ReferralPending {
		return nil
	}
	return s.payReferral(ctx, tx, r.b, e)
}

// decideReward is the one decision of a reward, whichever road applies
// it (batched or in a transaction): the points it earns (earn: the
// earning engine over its rules and the offers active at its time), the
// terms and pending share of the lot it opens (settle), and its event,
// dated now. Of the offers it counts, the ones of limited uses per
// customer (Offer.Limited, Earning.Limited) must have their uses
// recorded with it.
func decideReward(ctx context.Context, rd RewardReader, tiers TierLevels, rules Rules, r *entryRequest, now time.Time) (earned, error) {
	e := &r.entry
	if e.Basket != nil {
		if err := resolveBasket(ctx, rd, r.b.ID, e.Basket); err != nil {
			return earned{}, err
		}
	}
	got, err := earn(ctx, rd, tiers, r.b, rules, r.in, e, nil)
	if err != nil {
		return earned{}, err
	}
	rules.settle(e)
	if rewardEvents {
		e.Event = EntryEvent(now)
	}
	return got, nil
}

// earned is what earn decided: the program and sale it evaluated and what
// they earned (for a spend; zero for visits).
type earned struct {
	prog   program
	sale   *sale
	result Earning
}

// earn sets the points a checked reward earns. For a spend it runs the
// earning engine (earning_engine.go) over the business's earning rules,
// its points per amount and the points offers that apply at e.CreatedAt
// (ApplicableOffers); for visits, the points per visit. It is the one
// place a reward's points are computed; a request computes them once.
// The days, weeks and windows are the business's, in its time zone.
//
// With why it explains: the result's outcomes are filled, and the offers
// ApplicableOffers left out are listed there (the dry run, POST
// /baskets/evaluate).
func earn(ctx context.Context, rd RewardReader, tiers TierLevels, b Business, rules Rules, in *TransactionInput, e *Transaction, why *[]SkippedOffer) (earned, error) {
	var got earned
	switch {
	case in.Amount.Set:
		loc := zoneOf(rules.TimeZone)
		got.prog.rules = rules
		if b.Loaded == nil || b.Loaded.HasPointsOffers {
			all := []Offer(nil)
			var err error
			if b.Loaded != nil && b.Loaded.OffersRead {
				all = b.Loaded.PointsOffers
			} else if all, err = rd.PointsOffers(ctx, b.ID); err != nil {
				return got, err
			}
			if got.prog.offers, err = ApplicableOffers(ctx, rd, b.ID, all, e, loc, why); err != nil {
				return got, err
			}
		}
		if b.Loaded == nil || b.Loaded.HasEarningRules {
			if b.Loaded != nil && b.Loaded.EarningRead {
				got.prog.earning, got.prog.book = b.Loaded.EarningRules, b.Loaded.book
			} else {
				list, err := rd.EarningRules(ctx, b.ID)
				if err != nil {
					return got, err
				}
				got.prog.earning = list
			}
		}
		branch, err := saleBranch(ctx, rd, b.ID, got.prog.earning, e)
		if err != nil {
			return got, err
		}
		got.prog.customer = e.CustomerID
		if got.prog.usage, err = ruleUsage(ctx, rd, got.prog.earning, e, loc); err != nil {
			return got, err
		}
		if got.prog.facts, err = customerFacts(ctx, rd, tiers, b.ID, got.prog.earning, e); err != nil {
			return got, err
		}
		if b.Loaded == nil || b.Loaded.HasPunchCards {
			if b.Loaded != nil && b.Loaded.CardsRead {
				got.prog.cards = b.Loaded.PunchCards
			} else if got.prog.cards, err = rd.PunchCards(ctx, b.ID); err != nil {
				return got, err
			}
		}
		if ids := giftOffers(got.prog.earning); len(ids) > 0 {
			if got.prog.giftOffers, err = rd.OffersByID(ctx, b.ID, ids); err != nil {
				return got, err
			}
		}
		got.sale = newSale(e, loc, branch, rules.Exclude)
		got.result = got.prog.evaluate(got.sale, why != nil)
		got.set(e)
	case in.Visits.Set:
		e.Points = e.Visits * rules.PointsPerVisit
	}
	e.TierPoints = e.Points
	return got, nil
}

// set puts what the engine decided on the entry: its points, the offer
// that names it and, for a basket, the points each line earned.
func (got *earned) set(e *Transaction) {
	e.Points, e.OfferID, e.Applied = got.result.Points, got.result.OfferID, got.result.Applied
	if e.Basket == nil {
		return
	}
	for i := range e.Basket.Lines {
		e.Basket.Lines[i].Points = 0
		if i < len(got.result.LinePoints) {
			e.Basket.Lines[i].Points = got.result.LinePoints[i]
		}
	}
}

// saleBranch is the branch a reward's earning rules see: its own, else
// the main branch, read only when a rule is kept to some branches.
func saleBranch(ctx context.Context, rd OfferFinder, businessID string, rules []EarningRule, e *Transaction) (string, error) {
	if e.BranchID != "" {
		return strings.ToLower(e.BranchID), nil
	}
	for _, r := range rules {
		if len(r.Conditions.Branches) > 0 && r.Active(e.CreatedAt) {
			m, err := rd.MainBranch(ctx, businessID)
			return m.ID, err
		}
	}
	return "", nil
}

// ruleUsage reads what the limited rules active at the reward's time
// have used in the periods that hold it: the customer's uses (when the
// reward has a customer) and the budgets' points.
func ruleUsage(ctx context.Context, rd OfferFinder, rules []EarningRule, e *Transaction, loc *time.Location) (RuleUsage, error) {
	var uses, budgets []RulePeriod
	var periods OfferPeriods
	for i, r := range rules {
		if !r.Limits.limited() || !r.Active(e.CreatedAt) {
			continue
		}
		if periods.Day == "" {
			periods = UsePeriods(e.CreatedAt, loc)
		}
		if l := r.Limits.PerCustomer; l != nil && e.CustomerID != "" {
			uses = append(uses, RulePeriod{rules[i].ID, periods.key(l.Period)})
		}
		if l := r.Limits.Budget; l != nil {
			budgets = append(budgets, RulePeriod{rules[i].ID, periods.key(l.Period)})
		}
	}
	if len(uses)+len(budgets) == 0 {
		return RuleUsage{}, nil
	}
	return rd.EarningRuleUsage(ctx, e.CustomerID, uses, budgets)
}

// customerFacts reads what the conditions on the reward's customer of
// the rules active at its time are decided by, when one asks and the
// reward has a customer: its birth date and purchases and when the
// campaigns the rules name reached it (in rd, the reward's transaction or
// the store), and its tier level (tiers).
func customerFacts(ctx context.Context, rd OfferFinder, tiers TierLevels, businessID string, rules []EarningRule, e *Transaction) (CustomerFacts, error) {
	var person, tier bool
	var campaigns []int64
	for _, r := range rules {
		if c := r.Conditions; c.onCustomer() && r.Active(e.CreatedAt) {
			person = person || c.FirstPurchase || c.BirthdayWithinDays != nil
			tier = tier || len(c.TierLevels) > 0
			if c.CampaignID != 0 && !slices.Contains(campaigns, c.CampaignID) {
				campaigns = append(campaigns, c.CampaignID)
			}
		}
	}
	var f CustomerFacts
	var err error
	if e.CustomerID == "" {
		return f, nil
	}
	if person {
		if f, err = rd.CustomerPurchaseFacts(ctx, businessID, e.CustomerID); err != nil {
			return f, err
		}
	}
	if len(campaigns) > 0 {
		if f.Reached, err = rd.CampaignsReached(ctx, businessID, e.CustomerID, campaigns, RecipientSent); err != nil {
			return f, err
		}
	}
	if tier && tiers != nil {
		f.TierLevel, err = tiers.TierLevelOf(ctx, businessID, e.CustomerID)
	}
	return f, err
}

// rulesOf returns the business's rules, read with the business when they
// were, else now from st (a store or a transaction).
func rulesOf(ctx context.Context, st interface {
	Rules(context.Context, Business) (Rules, error)
}, b Business) (Rules, error) {
	if b.Loaded != nil {
		return b.Loaded.Rules, nil
	}
	return st.Rules(ctx, b)
}

// returnIntent takes back the points a returned spend earned, never more
// than the customer holds, and lowers the spend counted for tiers.
type returnIntent struct{}

func (returnIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentReturn, "points", "visits")
	if in.ReversesID.Set {
		// A return by item (return_items.go).
		if id, ok := in.ReversesID.Value(); !ok || id <= 0 {
			v.Add("reverses_id", "The reverses_id must be the id of the reward returned.")
		} else {
			e.ReturnsID = id
		}
		if in.Amount.Set {
			v.Add("amount", "A return of a reward (reverses_id) takes its amount from the units returned; leave amount out.")
		}
		in.returnItems(v, e)
		return
	}
	if in.Items.Set {
		v.Add("items", "A return by item names the reward it returns: reverses_id.")
	}
	e.Amount = in.positiveAmount(v)
	e.TierAmount = -e.Amount
}

func (returnIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	if e.ReturnsID != 0 {
		return returnItems(ctx, tx, r)
	}
	rules, err := rulesOf(ctx, tx, r.b)
	if err != nil {
		return err
	}
	c, err := tx.CustomerAny(ctx, r.b.ID, e.CustomerID)
	if err == nil && c.Deleted {
		err = customerNotFound()
	}
	if err != nil {
		return err
	}
	// A return in the purchase's return window takes back pending points.
	points := min(rules.PointsForSpend(e.Amount), c.Balance.Points+c.Balance.Pending)
	e.Points, e.TierPoints, e.TakePending = -points, -points, true
	return appendEntry(ctx, tx, e)
}

// onlyOne checks that exactly one of the named inputs was sent.
func onlyOne(v Validation, names []string, sent []bool) int {
	n, which := 0, -1
	for i, s := range sent {
		if s {
			n, which = n+1, i
		}
	}
	if n != 1 {
		v.Add(names[0], "Exactly one of "+strings.Join(names, ", ")+" is required.")
		return -1
	}
	return which
}

// giftOffers are the offers the coupon rules among rules name.
func giftOffers(rules []EarningRule) []int64 {
	var ids []int64
	for _, r := range rules {
		if r.Effect.Type == EffectCoupon && !slices.Contains(ids, r.Effect.OfferID) {
			ids = append(ids, r.Effect.OfferID)
		}
	}
	return ids
}
