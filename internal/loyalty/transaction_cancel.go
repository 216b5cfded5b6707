package loyalty

import (
	"cmp"
	"context"
	"strconv"
)

// cancellable are the intents DELETE /transactions/{id} may reverse.
var cancellable = map[string]bool{IntentReward: true, IntentRedeem: true, IntentAdjust: true,
	IntentStoreCredit: true, IntentGiftcardPay: true, IntentReturn: true}

// Cancel reverses a transaction by appending its opposite; the original
// stays in the ledger. A balance that cannot cover the reversal is EInvalid.
func (s *TransactionService) Cancel(ctx context.Context, b Business, id int64) (Transaction, error) {
	return s.CancelOf(ctx, b, "", id)
}

// CancelOf is Cancel of an entry of one customer (any when customerID is
// ""): another customer's entry is not found.
func (s *TransactionService) CancelOf(ctx context.Context, b Business, customerID string, id int64) (Transaction, error) {
	var out Transaction
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		orig, err := tx.Transaction(ctx, b.ID, id)
		if err == nil && customerID != "" && orig.CustomerID != customerID {
			err = Errorf(ENotFound, "another customer's")
		}
		if err != nil {
			return notFoundField(err, "Transaction not found.")
		}
		if !cancellable[orig.Intent] {
			return Invalid("id", "A "+orig.Intent+" transaction cannot be cancelled.")
		}
		if err := noteCancel(ctx, tx, s.Store, b, orig); err != nil {
			return err
		}
		e := newEntry(b, orig.CustomerID, IntentCancellation, tx.Now())
		e.ReversesID, e.BranchID = orig.ID, orig.BranchID
		e.Amount = orig.Amount
		e.Points, e.Giftcard, e.Visits = -orig.Points, -orig.Giftcard, -orig.Visits
		// A pending reward's tier points come with its activation; the
		// store counts none for what it takes from, or gives back to,
		// pending lots (see Append).
		e.TierAmount, e.TierPoints = -orig.TierAmount, -(orig.TierPoints + orig.Pending)
		var returns map[int64]*Basket
		if orig.Intent == IntentReward {
			// What returns by item took back of the reward is not taken again.
			if returns, err = lessReturned(ctx, tx, b.ID, orig, &e); err != nil {
				return err
			}
		}
		if e.Points > 0 {
			// Points given back whose lots are unknown (spent before lots
			// were kept) open a lot under the business's rules.
			rules, err := rulesOf(ctx, tx, b)
			if err != nil {
				return err
			}
			e.Terms = rules.Terms(IntentCancellation, e.CreatedAt)
		}
		if err := appendEntry(ctx, tx, &e); err != nil {
			return err
		}
		if orig.Intent == IntentReward {
			// The coupons and stamps it gave, as its last return would.
			restore, err := takeBackCoupons(ctx, tx, b.ID, orig)
			if err != nil {
				return err
			}
			if err := unstamp(ctx, tx, b.ID, orig, returns, returnPlan{all: true}, &e, restore); err != nil {
				return err
			}
		}
		if orig.Intent == IntentRedeem {
			// A member's voucher still waiting for the counter goes with
			// its points; one handed over stays handed over.
			if err := cancelVoucher(ctx, tx, b.ID, orig.ID, e.ID); err != nil {
				return err
			}
		}
		if err := record(ctx, tx, b.ID, EventTransactionCancelled, NewTransactionJSON(orig)); err != nil {
			return err
		}
		out = e
		return nil
	})
	return out, err
}

// Cancellable reports whether the entry is of a kind a cancellation may
// reverse.
func (t Transaction) Cancellable() bool { return cancellable[t.Intent] }

// lessReturned lowers the cancellation e of the reward orig by what its
// returns by item took back already: a reward is never taken back twice.
// It returns those returns' baskets, by entry.
func lessReturned(ctx context.Context, tx Tx, businessID string, orig Transaction, e *Transaction) (map[int64]*Basket, error) {
	if err := tx.LockEntry(ctx, businessID, orig.ID); err != nil {
		return nil, err
	}
	returns, err := tx.ReturnBaskets(ctx, businessID, orig.ID)
	if err != nil {
		return nil, err
	}
	for id := range returns {
		r, err := tx.Transaction(ctx, businessID, id)
		if err != nil {
			return nil, err
		}
		// A return's points and amounts are negative where the reward's are positive.
		e.Points -= r.Points
		e.TierPoints -= r.TierPoints
		e.Amount += r.TierAmount
		e.TierAmount -= r.TierAmount
	}
	return returns, nil
}

// noteCancel names an audited cancellation as the console's customer page
// does, whatever asked for it (that page, or an app through the API): by
// the customer, with the transaction among its settings.
func noteCancel(ctx context.Context, tx Tx, st any, b Business, orig Transaction) error {
	if !auditing(st) {
		return nil
	}
	c, err := tx.CustomerAny(ctx, b.ID, orig.CustomerID)
	if err != nil && ErrorCode(err) != ENotFound {
		return err
	}
	noteTarget(st, cmp.Or(c.Label(), "Customer #"+orig.CustomerID))
	noteChanges(st, nil, map[string]string{"transaction": strconv.FormatInt(orig.ID, 10)})
	return nil
}
