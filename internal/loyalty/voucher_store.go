package loyalty

import (
	"context"
	"time"
)

// VoucherReader reads vouchers.
type VoucherReader interface {
	// CustomerVouchers returns a customer's vouchers, newest first, each
	// with its reward.
	CustomerVouchers(ctx context.Context, businessID, customerID string) ([]Voucher, error)
	// DueVouchers returns up to limit vouchers neither handed over nor
	// returned whose expiry is at or before at, in expiry order; with
	// businessID, of that business only.
	DueVouchers(ctx context.Context, businessID string, at time.Time, limit int) ([]Voucher, error)
}

// VoucherTx is the part of a transaction that writes vouchers.
type VoucherTx interface {
	// InsertVoucher writes a new voucher.
	InsertVoucher(ctx context.Context, v *Voucher) error
	// VoucherByCode returns the voucher of a business with the code, with
	// its reward, or ENotFound.
	VoucherByCode(ctx context.Context, businessID, code string) (Voucher, error)
	// VoucherOfEntry returns the voucher a redemption gave, or ENotFound.
	VoucherOfEntry(ctx context.Context, businessID string, entryID int64) (Voucher, error)
	// HandOverVoucher records v's hand-over (its HandedOver fields) if it
	// is still neither handed over nor returned; it reports whether it
	// did.
	HandOverVoucher(ctx context.Context, v Voucher) (bool, error)
	// ReturnVoucher records that v's points were given back (its Returned
	// fields) if it is still neither handed over nor returned; it reports
	// whether it did.
	ReturnVoucher(ctx context.Context, v Voucher) (bool, error)
}
