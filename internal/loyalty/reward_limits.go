package loyalty

import (
	"context"
	"math"
	"slices"
)

// A reward that counts limited offers or earning rules records their use
// in its own transaction (useLimits).

// errLimitTaken ends an attempt of useLimits that lost a limit.
var errLimitTaken = Errorf(EConflict, "A limit was taken meanwhile.")

// useLimits records, in the reward's transaction, what the limited offers
// and earning rules its points count use: each offer's use in its period
// (the reward's day or week, or once ever), each rule's use by the
// customer and the points its budget gave, in their periods. A limit
// another reward took meanwhile (a concurrent reward committed first: the
// take waits for it, then loses) no longer applies: everything this
// attempt recorded is undone, the points are counted again without it,
// and the uses of that count are recorded, until one attempt records
// every use it counts.
func useLimits(ctx context.Context, tx Tx, got *earned, periods OfferPeriods, e *Transaction) error {
	for len(got.result.Limited)+len(got.result.Takes) > 0 {
		var lostOffers, lostRules []int64
		err := tx.Try(ctx, func() error {
			for _, o := range got.result.Limited {
				ok, err := tx.UseOffer(ctx, o.ID, e.CustomerID, o.period(periods), e.CreatedAt)
				if err != nil {
					return err
				}
				if !ok {
					lostOffers = append(lostOffers, o.ID)
				}
			}
			for _, t := range got.result.Takes {
				ok := true
				var err error
				if t.Rule.Conditions.FirstPurchase {
					ok, err = tx.TakeRuleUse(ctx, t.Rule.ID, e.CustomerID, firstPurchasePeriod, 1)
				}
				if c := t.Rule.Conditions.CampaignID; err == nil && ok && c != 0 {
					// Counted, never refused: how many recipients used the gift.
					ok, err = tx.TakeRuleUse(ctx, t.Rule.ID, e.CustomerID, campaignPeriod(c), math.MaxInt64)
				}
				if l := t.Rule.Limits.PerCustomer; err == nil && ok && l != nil {
					ok, err = tx.TakeRuleUse(ctx, t.Rule.ID, e.CustomerID, periods.key(l.Period), l.Count)
				}
				if l := t.Rule.Limits.Budget; err == nil && ok && l != nil && t.Points > 0 {
					ok, err = tx.TakeRuleBudget(ctx, t.Rule.ID, periods.key(l.Period), t.Points, l.Count)
				}
				if err != nil {
					return err
				}
				if !ok {
					lostRules = append(lostRules, t.Rule.ID)
				}
			}
			if len(lostOffers)+len(lostRules) > 0 {
				return errLimitTaken
			}
			return nil
		})
		if err != errLimitTaken {
			return err
		}
		got.prog.offers = slices.DeleteFunc(slices.Clone(got.prog.offers), func(f Offer) bool { return slices.Contains(lostOffers, f.ID) })
		got.prog.lost = append(slices.Clone(got.prog.lost), lostRules...)
		got.result = got.prog.evaluate(got.sale, false)
		got.set(e)
		e.TierPoints = e.Points
	}
	return nil
}
