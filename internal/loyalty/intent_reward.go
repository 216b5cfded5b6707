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
	if !r.earned {
		rules, err := rulesOf(ctx, tx, r.b)
		if err != nil {
			return err
		}
		found, once, err := decideReward(ctx, tx, rules, r, tx.Now())
		if err != nil {
			return err
		}
		if len(once) > 0 {
			periods := UsePeriods(e.CreatedAt, zoneOf(rules.TimeZone))
			if err := useOffers(ctx, tx, rules.PointsForSpend(e.Amount), found, once, periods, e); err != nil {
				return err
			}
			// The points may have been counted again without an offer used meanwhile.
			rules.settle(e)
		}
	}
	if err := appendEntry(ctx, tx, e); err != nil {
		return err
	}
	if !e.ReferralPending {
		return nil
	}
	return s.payReferral(ctx, tx, r.b, e)
}

// decideReward is the one decision of a reward, whichever road applies
// it (batched or in a transaction): the points it earns under the rules
// and the offers active at its time (earn), the terms and pending share
// of the lot it opens (settle), and its event, dated now. It returns the
// offers found and, of those, the ones of limited uses per customer
// (Offer.Limited) its points count, whose uses must be recorded with it.
func decideReward(ctx context.Context, offers RewardReader, rules Rules, r *entryRequest, now time.Time) (found, once []Offer, err error) {
	e := &r.entry
	if e.Basket != nil {
		if err := resolveBasket(ctx, offers, r.b.ID, e.Basket); err != nil {
			return nil, nil, err
		}
	}
	if found, once, err = earn(ctx, offers, r.b, rules, r.in, e, nil); err != nil {
		return nil, nil, err
	}
	rules.settle(e)
	if rewardEvents {
		e.Event = EntryEvent(now)
	}
	return found, once, nil
}

// earn sets the points a checked reward earns under the rules and, for a
// spend, the points offers active at e.CreatedAt (see offerPoints). It is
// the one place a reward's points are computed; a request computes them
// once. It returns the offers found (in their day-and-time window at
// e.CreatedAt) and, of those, the limited ones that the points count. The
// days, weeks and windows are the business's, in its time zone.
//
// With why it lists there the offers that did not apply and why (the dry
// run's explanation, POST /baskets/evaluate).
func earn(ctx context.Context, offers OfferFinder, b Business, rules Rules, in *TransactionInput, e *Transaction, why *[]SkippedOffer) (found, once []Offer, err error) {
	switch {
	case in.Amount.Set:
		e.Points = rules.PointsForSpend(e.Amount)
		if b.Loaded == nil || b.Loaded.HasPointsOffers {
			all := []Offer(nil)
			if b.Loaded != nil && b.Loaded.OffersRead {
				all = b.Loaded.PointsOffers
			} else if all, err = offers.PointsOffers(ctx, b.ID); err != nil {
				return nil, nil, err
			}
			if found, err = ApplicableOffers(ctx, offers, b.ID, all, e, zoneOf(rules.TimeZone), why); err != nil {
				return nil, nil, err
			}
			once = offerPoints(e.Points, found, e)
		}
	case in.Visits.Set:
		e.Points = e.Visits * rules.PointsPerVisit
	}
	e.TierPoints = e.Points
	return found, once, nil
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

// offerPoints sets e.Points from the base points of a spend and the
// offers whose purchase range holds the spend's amount: the best
// multiplier multiplies, every bonus adds; e.OfferID records the
// multiplier, else the first bonus. It returns the limited offers
// (Offer.Limited) it counted.
func offerPoints(base int64, offers []Offer, e *Transaction) []Offer {
	var best Offer
	var once []Offer
	bonus := int64(0)
	e.OfferID = 0
	for _, o := range offers {
		if !o.AppliesTo(e.Amount) {
			continue
		}
		switch o.TypeID {
		case OfferPointsMultiplier:
			if o.MultipFactor > best.MultipFactor {
				best = o
			}
		case OfferBonusPoints:
			bonus += o.Points
			if e.OfferID == 0 {
				e.OfferID = o.ID
			}
			if o.Limited() {
				once = append(once, o)
			}
		}
	}
	points := base
	if best.ID != 0 && best.MultipFactor > 100 {
		// Factors are hundredths; the product rounds down to whole points.
		points = base * int64(best.MultipFactor) / 100
		e.OfferID = best.ID
		if best.Limited() {
			once = append(once, best)
		}
	}
	e.Points = points + bonus
	return once
}

// useOffers records, in the reward's transaction, the uses of the limited
// offers that its points count, each in its period of periods (the
// reward's day or week, or once ever). An offer the customer used in it
// meanwhile (a concurrent reward committed first: its use waits and
// then loses) no longer applies, and the points are counted again without
// it until every counted use is recorded.
func useOffers(ctx context.Context, tx Tx, base int64, found, once []Offer, periods OfferPeriods, e *Transaction) error {
	used := map[int64]bool{}
	for len(once) > 0 {
		lost := false
		for _, o := range once {
			if used[o.ID] {
				continue
			}
			ok, err := tx.UseOffer(ctx, o.ID, e.CustomerID, o.period(periods), e.CreatedAt)
			if err != nil {
				return err
			}
			if ok {
				used[o.ID] = true
				continue
			}
			found = slices.DeleteFunc(found, func(f Offer) bool { return f.ID == o.ID })
			lost = true
		}
		if !lost {
			return nil
		}
		once = offerPoints(base, found, e)
		e.TierPoints = e.Points
	}
	return nil
}

// returnIntent takes back the points a returned spend earned, never more
// than the customer holds, and lowers the spend counted for tiers.
type returnIntent struct{}

func (returnIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentReturn, "points", "visits")
	e.Amount = in.positiveAmount(v)
	e.TierAmount = -e.Amount
}

func (returnIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
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
