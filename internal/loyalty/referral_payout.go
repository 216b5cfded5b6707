package loyalty

import (
	"context"
	"time"
)

// Why a purchase does not pay a pending referral (qualify).
const (
	referralQualifies = ""
	referralExpired   = "expired"   // the program's expires_in days have passed
	referralBelowMin  = "below_min" // the amount is under the program's cond_min_amount
	referralEarly     = "early"     // the purchase happened before the referral
)

// qualify is the one rule both payouts follow: a purchase of amount at a
// time pays a pending referral when it happened after the referral, within
// the program's expires_in days (0: no limit) and for at least its
// cond_min_amount. It says why not otherwise.
func qualify(ref Referral, prog ReferralProgram, amount Money, at time.Time) string {
	switch {
	case prog.ExpiresIn > 0 && !at.Before(ref.CreatedAt.Add(time.Duration(prog.ExpiresIn)*24*time.Hour)):
		return referralExpired
	case at.Before(ref.CreatedAt):
		return referralEarly
	case amount < prog.CondMinAmount:
		return referralBelowMin
	}
	return referralQualifies
}

// referralIntent pays the customer's pending referral for a purchase of
// amount, under exactly the rules of the automatic payout (qualify, and
// never from a disabled program). A purchase that does not qualify is
// ENotMet (the reference's 202, nothing written); no pending referral, or
// a disabled program, is ENotFound.
type referralIntent struct{}

func (referralIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	e.Amount = in.positiveAmount(v)
	in.unused(v, IntentReferral, "points", "visits")
}

func (referralIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	ref, prog, err := tx.PendingReferral(ctx, r.b.ID, e.CustomerID)
	if ErrorCode(err) == ENotFound {
		return Errorf(ENotFound, "Referral not found for customer.")
	} else if err != nil {
		return err
	}
	if !prog.Enabled {
		return Errorf(ENotFound, "The customer's referral program is not active.")
	}
	switch qualify(ref, prog, e.Amount, e.CreatedAt) {
	case referralExpired:
		return NotMet("The referral condition is not met: the referral expired after " + itoa(int(prog.ExpiresIn)) + " days.")
	case referralEarly:
		return NotMet("The referral condition is not met: the purchase happened before the referral.")
	case referralBelowMin:
		return NotMet("The referral condition is not met: the amount is under the minimum of " + r.b.FormatMoney(prog.CondMinAmount) + ".")
	}
	settled, err := tx.SettleReferral(ctx, ref, ReferralPaid)
	if err != nil {
		return err
	}
	if !settled {
		return Errorf(ENotFound, "Referral not found for customer.")
	}
	e.Points, e.TierPoints = prog.RefereeEarns, prog.RefereeEarns
	return pay(ctx, tx, r.b, ref, prog, e)
}

// payReferral pays a pending referral on the referee's first qualifying
// reward, exactly once; a reward that comes too late settles it expired,
// and one that qualifies while the program is disabled settles it
// forfeited.
func (s *TransactionService) payReferral(ctx context.Context, tx Tx, b Business, reward *Transaction) error {
	ref, prog, err := tx.PendingReferral(ctx, b.ID, reward.CustomerID)
	if ErrorCode(err) == ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	outcome := ReferralPaid
	switch qualify(ref, prog, reward.Amount, reward.CreatedAt) {
	case referralExpired:
		outcome = ReferralExpired
	case referralEarly, referralBelowMin:
		return nil
	default:
		if !prog.Enabled {
			outcome = ReferralForfeited
		}
	}
	settled, err := tx.SettleReferral(ctx, ref, outcome)
	if err != nil || !settled || outcome != ReferralPaid {
		return err
	}
	var referee *Transaction
	if prog.RefereeEarns > 0 {
		p := newEntry(b, ref.RefereeID, IntentReferral, reward.CreatedAt)
		p.Points, p.TierPoints = prog.RefereeEarns, prog.RefereeEarns
		referee = &p
	}
	if err := pay(ctx, tx, b, ref, prog, referee); err != nil {
		return err
	}
	if referee != nil {
		reward.Balance = referee.Balance
	}
	return nil
}

// pay appends a settled referral's payouts: the referee's entry (nil when
// the referee earns nothing) and the referrer's, dated with the referee's.
// A referrer who left or was deactivated since is not paid: the referee's
// payout must not fail because of it.
func pay(ctx context.Context, tx Tx, b Business, ref Referral, prog ReferralProgram, referee *Transaction) error {
	if err := record(ctx, tx, b.ID, EventReferralPaid, newReferralJSON(ref, prog)); err != nil {
		return err
	}
	at := tx.Now()
	if referee != nil {
		if err := appendEarning(ctx, tx, b, referee); err != nil {
			return err
		}
		at = referee.CreatedAt
	}
	if prog.RefererEarns <= 0 {
		return nil
	}
	c, err := tx.CustomerAny(ctx, b.ID, ref.ReferrerID)
	if err != nil && ErrorCode(err) != ENotFound {
		return err
	}
	if err != nil || c.Deleted || !c.Enabled {
		return nil
	}
	p := newEntry(b, ref.ReferrerID, IntentReferral, at)
	// The intent's entry is the referee's; the referrer's is the other row.
	p.setType(TypeCodeReferrerRewarded)
	p.Points, p.TierPoints = prog.RefererEarns, prog.RefererEarns
	return appendEarning(ctx, tx, b, &p)
}
