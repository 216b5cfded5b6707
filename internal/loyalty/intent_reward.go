package loyalty

import (
	"context"
	"strings"
)

// rewardIntent earns points for a spend (through the earning rules and the
// active offers), for a number of visits, or as given.
type rewardIntent struct{}

func (rewardIntent) check(in *TransactionInput, e *Transaction, v Validation) {
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
		if err := earn(ctx, tx, r.b, rules, r.in, e); err != nil {
			return err
		}
	}
	if err := tx.Append(ctx, e); err != nil {
		return err
	}
	if !e.ReferralPending {
		return nil
	}
	return s.payReferral(ctx, tx, r.b, e)
}

// earn sets the points a checked reward earns under the rules and, for a
// spend, the offers active at e.CreatedAt. It is the one place a reward's
// points are computed; a request computes them once.
func earn(ctx context.Context, offers OfferFinder, b Business, rules Rules, in *TransactionInput, e *Transaction) error {
	switch {
	case in.Amount.Set:
		e.Points = rules.PointsForSpend(e.Amount)
		if b.Loaded == nil || b.Loaded.HasPointsOffers {
			found, err := offers.PointsOffers(ctx, b.ID, e.CustomerID, e.BranchID, e.CreatedAt)
			if err != nil {
				return err
			}
			e.Points = applyOffers(e.Points, found, e)
		}
	case in.Visits.Set:
		e.Points = e.Visits * rules.PointsPerVisit
	}
	e.TierPoints = e.Points
	return nil
}

// rulesOf returns the business's rules, read with the business when they
// were, else now.
func rulesOf(ctx context.Context, tx Tx, b Business) (Rules, error) {
	if b.Loaded != nil {
		return b.Loaded.Rules, nil
	}
	return tx.Rules(ctx, b)
}

// applyOffers multiplies the base points by the best active multiplier and
// adds every bonus offer, recording the offer that applied.
func applyOffers(base int64, offers []Offer, e *Transaction) int64 {
	var best Offer
	bonus := int64(0)
	for _, o := range offers {
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
		}
	}
	points := base
	if best.ID != 0 && best.MultipFactor > 100 {
		// Factors are hundredths; the product rounds down to whole points.
		points = base * int64(best.MultipFactor) / 100
		e.OfferID = best.ID
	}
	return points + bonus
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
	points := min(rules.PointsForSpend(e.Amount), c.Balance.Points)
	e.Points, e.TierPoints = -points, -points
	return tx.Append(ctx, e)
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
