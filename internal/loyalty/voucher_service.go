package loyalty

import (
	"context"
	"slices"
	"time"
)

// VoucherService runs a member's own redemptions and the counter's
// hand-over of what they redeemed.
type VoucherService struct {
	Store        Store
	Transactions *TransactionService
}

// MemberRedemptionInput is the body of POST /users/{id}/redemptions.
type MemberRedemptionInput struct {
	BusinessID Opt[string] `json:"business_id"`
	RewardID   Opt[int64]  `json:"reward_id"`
	Quantity   Opt[int64]  `json:"quantity"`
}

// Redemption is what a member's redemption did: the entry that spent the
// points and the voucher the counter hands the reward over for.
type Redemption struct {
	Voucher Voucher
	Entry   Transaction
}

// redemptionFields names the redemption's fields where the ledger's
// redeem names its own.
var redemptionFields = map[string]string{"catalog_items": "reward_id", "catalog_items.0.id": "reward_id",
	"catalog_items.0.quantity": "quantity", "points": "quantity"}

// Redeem spends the customer's points on a catalog item of b, as the
// ledger's redeem does (its availability, audience and branches, the
// balance, the lots spent first to expire), and issues the voucher the
// counter hands it over for, in one transaction. Beyond the balance it is
// EInvalid and changes nothing.
func (s *VoucherService) Redeem(ctx context.Context, b Business, customerID string, in MemberRedemptionInput) (Redemption, error) {
	v := Validation{}
	id, ok := in.RewardID.Value()
	if !ok || id <= 0 {
		v.Add("reward_id", "The reward_id of a catalog item is required.")
	}
	qty := int64(1)
	if in.Quantity.Set {
		if qty, ok = in.Quantity.Value(); !ok || qty < 1 || qty > 100 {
			v.Add("quantity", "The quantity must be a whole number from 1 to 100.")
		}
	}
	if err := v.Err(); err != nil {
		return Redemption{}, err
	}
	tin := TransactionInput{Intent: Some(IntentRedeem), Customer: Some(CustomerRef{ID: Some(customerID)}),
		CatalogItems: Some([]ItemInput{{ID: Some(id), Quantity: Some(qty)}})}
	r, err := check(b, &tin, s.Store.Now())
	if err != nil {
		return Redemption{}, RenameFields(err, redemptionFields)
	}
	var out Redemption
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		r.stamp(tx.Now())
		if err := r.intent.apply(ctx, s.Transactions, tx, r); err != nil {
			return err
		}
		it := r.entry.Items[0]
		out.Entry = r.entry
		out.Voucher = Voucher{BusinessID: b.ID, CustomerID: customerID, EntryID: r.entry.ID, RewardID: it.RewardID,
			Quantity: it.Quantity, Points: it.Points, Code: newVoucherCode(), CreatedAt: tx.Now(),
			ExpiresAt: tx.Now().Add(VoucherLife), Reward: it.Reward}
		if err := tx.InsertVoucher(ctx, &out.Voucher); err != nil {
			return err
		}
		return record(ctx, tx, b.ID, EventVoucherIssued, NewVoucherJSON(out.Voucher, tx.Now()))
	})
	if ErrorCode(err) == ENotFound {
		// The reward is what the member named: not one of the catalog.
		return Redemption{}, Invalid("reward_id", "No catalog item of this business has this id.")
	} else if err != nil {
		return Redemption{}, RenameFields(err, redemptionFields)
	}
	return out, nil
}

// Vouchers returns a customer's vouchers, newest first.
func (s *VoucherService) Vouchers(ctx context.Context, b Business, customerID string) ([]Voucher, error) {
	return s.Store.CustomerVouchers(ctx, b.ID, customerID)
}

// HandOver is the counter scanning a voucher's code: the first scan of a
// voucher waiting to be handed over records the hand-over by who, at
// branch (the main one when ""), and returns it with first set; a later
// scan returns the voucher as it is (handed over, when and by whom) with
// first unset. A voucher past its expiry, or whose points were given
// back, is EInvalid on code. A code of no voucher of b is ENotFound.
func (s *VoucherService) HandOver(ctx context.Context, b Business, code, who, branch string) (v Voucher, first bool, err error) {
	norm, ok := NormalVoucherCode(code)
	if !ok {
		return Voucher{}, false, Errorf(ENotFound, "Voucher not found.")
	}
	if branch != "" {
		list, err := s.Store.Branches(ctx, b.ID)
		if err != nil {
			return Voucher{}, false, err
		}
		if !slices.ContainsFunc(list, func(x Branch) bool { return x.ID == branch }) {
			return Voucher{}, false, Invalid("branch.id", "No branch of this business has this id.")
		}
	}
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		if v, err = tx.VoucherByCode(ctx, b.ID, norm); err != nil {
			return notFoundField(err, "Voucher not found.")
		}
		now := tx.Now()
		switch v.State(now) {
		case VoucherHandedOver:
			return nil
		case VoucherReturned:
			return Invalid("code", "This voucher's points were given back to the member: it can no longer be handed over.")
		case VoucherExpired:
			return Invalid("code", "This voucher has expired; its points go back to the member.")
		}
		if branch == "" {
			m, err := tx.MainBranch(ctx, b.ID)
			if err != nil {
				return err
			}
			branch = m.ID
		}
		v.HandedOverAt, v.HandedOverBy, v.HandedOverBranch = now, who, branch
		done, err := tx.HandOverVoucher(ctx, v)
		if err != nil {
			return err
		}
		if !done {
			return Errorf(EConflict, "The voucher changed meanwhile; scan it again.")
		}
		first = true
		return record(ctx, tx, b.ID, EventVoucherHandedOver, NewVoucherJSON(v, now))
	})
	return v, first, err
}

// Voucher returns the voucher of b with the code, or ENotFound.
func (s *VoucherService) Voucher(ctx context.Context, b Business, code string) (Voucher, error) {
	norm, ok := NormalVoucherCode(code)
	if !ok {
		return Voucher{}, Errorf(ENotFound, "Voucher not found.")
	}
	var v Voucher
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		var err error
		v, err = tx.VoucherByCode(ctx, b.ID, norm)
		return notFoundField(err, "Voucher not found.")
	})
	return v, err
}

// returnVoucher gives back the points of a voucher not handed over, dated
// at (its expiry, or now when the member's account is erased): an entry
// reversing its redemption (the lots it spent get their points back; why,
// in its comments), and the voucher marked returned. The redemption is
// reversed once whatever reverses it (the store refuses a second
// reversal).
func returnVoucher(ctx context.Context, tx Tx, b Business, v Voucher, at time.Time, why string) error {
	e := newEntry(b, v.CustomerID, IntentRefund, at)
	e.Comments = why
	e.ReversesID, e.Points = v.EntryID, v.Points
	rules, err := rulesOf(ctx, tx, b)
	if err != nil {
		return err
	}
	// Points whose lots are gone open a lot under the business's rules.
	e.Terms = rules.Terms(IntentRefund, at)
	if err := appendEntry(ctx, tx, &e); err != nil {
		return err
	}
	v.ReturnedAt, v.ReturnEntryID = at, e.ID
	done, err := tx.ReturnVoucher(ctx, v)
	if err != nil {
		return err
	}
	if !done {
		return errVoucherMoved
	}
	return record(ctx, tx, b.ID, EventVoucherReturned, NewVoucherJSON(v, at))
}

// cancelVoucher marks the voucher of a cancelled redemption, if it gave
// one still waiting for the counter, returned by the cancellation.
func cancelVoucher(ctx context.Context, tx Tx, businessID string, redemptionID, cancellationID int64) error {
	v, err := tx.VoucherOfEntry(ctx, businessID, redemptionID)
	if ErrorCode(err) == ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	if v.State(tx.Now()) == VoucherHandedOver {
		return nil
	}
	v.ReturnedAt, v.ReturnEntryID = tx.Now(), cancellationID
	done, err := tx.ReturnVoucher(ctx, v)
	if err != nil || !done {
		// Handed over meanwhile: it stays handed over.
		return err
	}
	return record(ctx, tx, businessID, EventVoucherReturned, NewVoucherJSON(v, tx.Now()))
}

// errVoucherMoved undoes a return of a voucher handed over meanwhile.
var errVoucherMoved = Errorf(EConflict, "The voucher was handed over meanwhile.")

// ReturnDueVouchers gives back the points of the vouchers not handed over
// by their expiry at or before at (of businessID only, when set), a
// transaction each, dated when each expired; it returns how many it gave
// back. A voucher handed over meanwhile, or whose redemption was
// cancelled, is left as it is.
func ReturnDueVouchers(ctx context.Context, st Store, businessID string, at time.Time, limit int) (int, error) {
	due, err := st.DueVouchers(ctx, businessID, at, limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range due {
		if at.Before(v.ExpiresAt) || v.State(at) != VoucherExpired {
			continue
		}
		b, err := st.Business(ctx, v.BusinessID)
		if err != nil {
			return n, err
		}
		err = st.WithTx(ctx, func(tx Tx) error { return returnVoucher(ctx, tx, b, v, v.ExpiresAt, "Voucher expired") })
		switch {
		case err == errVoucherMoved || RefusalOf(err) == RefusedReversed:
			// Handed over, or its redemption cancelled, meanwhile.
		case err != nil:
			return n, err
		default:
			n++
		}
	}
	return n, nil
}
