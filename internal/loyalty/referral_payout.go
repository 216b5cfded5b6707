package loyalty

import (
	"context"
	"time"
)

// referralIntent pays the customer's pending referral now, whatever the
// amount condition (a business's manual payout).
type referralIntent struct{}

func (referralIntent) check(*TransactionInput, *Transaction, Validation) {}

func (referralIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	ref, prog, err := tx.PendingReferral(ctx, r.b.ID, e.CustomerID)
	if ErrorCode(err) == ENotFound {
		return Invalid("customer", "The customer has no unpaid referral.")
	} else if err != nil {
		return err
	}
	settled, err := tx.SettleReferral(ctx, ref, ReferralPaid)
	if err != nil {
		return err
	}
	if !settled {
		return Invalid("customer", "The referral was already paid.")
	}
	e.Points, e.TierPoints = prog.RefereeEarns, prog.RefereeEarns
	if err := tx.Append(ctx, e); err != nil {
		return err
	}
	if prog.RefererEarns > 0 {
		p := newEntry(r.b, ref.ReferrerID, IntentReferral, tx.Now())
		p.Points, p.TierPoints = prog.RefererEarns, prog.RefererEarns
		return tx.Append(ctx, &p)
	}
	return nil
}

// payReferral pays a pending referral on the referee's first qualifying
// reward within the program's time limit, exactly once.
func (s *TransactionService) payReferral(ctx context.Context, tx Tx, b Business, reward *Transaction) error {
	ref, prog, err := tx.PendingReferral(ctx, b.ID, reward.CustomerID)
	if ErrorCode(err) == ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	now := tx.Now()
	expired := prog.ExpiresIn > 0 && !now.Before(ref.CreatedAt.Add(time.Duration(prog.ExpiresIn)*24*time.Hour))
	if !expired && reward.Amount < prog.CondMinAmount {
		return nil
	}
	outcome := ReferralPaid
	switch {
	case expired:
		outcome = ReferralExpired
	case !prog.Enabled:
		outcome = ReferralForfeited
	}
	settled, err := tx.SettleReferral(ctx, ref, outcome)
	if err != nil || !settled || outcome != ReferralPaid {
		return err
	}
	for _, pay := range []struct {
		who    string
		points int64
	}{{ref.RefereeID, prog.RefereeEarns}, {ref.ReferrerID, prog.RefererEarns}} {
		if pay.points <= 0 {
			continue
		}
		if pay.who != reward.CustomerID {
			// A referrer who left or was deactivated since is not paid; the
			// referee's reward must not fail because of it.
			c, err := tx.CustomerAny(ctx, b.ID, pay.who)
			if err != nil && ErrorCode(err) != ENotFound {
				return err
			}
			if err != nil || c.Deleted || !c.Enabled {
				continue
			}
		}
		e := newEntry(b, pay.who, IntentReferral, now)
		e.Points, e.TierPoints = pay.points, pay.points
		if err := tx.Append(ctx, &e); err != nil {
			return err
		}
		if pay.who == reward.CustomerID {
			reward.Balance = e.Balance
		}
	}
	return nil
}
