package loyalty

import (
	"context"
	"time"
)

// CustomerFilter is a search of a business's customers as the store runs
// it: every set condition must hold. Prefixes are compared as stored
// (e-mail lower-case, phone E.164, names lower-cased).
type CustomerFilter struct {
	NamePrefix    string    // the first name, the last name or "first last" starts with it
	EmailPrefix   string    // the e-mail starts with it
	PhonePrefixes []string  // the phone starts with one of them
	Enabled       *bool     // enabled or disabled customers only
	JoinedFrom    time.Time // joined at or after
	JoinedBefore  time.Time // joined before
}

// DeskStore is what the console's customer pages read beyond Store.
type DeskStore interface {
	// SearchCustomers pages the active customers of a business matching
	// f, newest first, with the total that match.
	SearchCustomers(ctx context.Context, businessID string, f CustomerFilter, offset, limit int) ([]Customer, int, error)
	// TierLevelReader reads the tier totals of many customers at once.
	TierLevelReader
	// CustomerReferrals returns the referral that brought a customer
	// (nil when none) and the referrals the customer made, newest first.
	CustomerReferrals(ctx context.Context, businessID, customerID string) (*Referral, []Referral, error)
	// CouponByCode returns the coupon of a business with the qrcode, or
	// ENotFound.
	CouponByCode(ctx context.Context, businessID, code string) (Coupon, error)
	// EachCustomer calls fn for each active customer of a business
	// matching f, oldest first, without holding them all.
	EachCustomer(ctx context.Context, businessID string, f CustomerFilter, fn func(Customer) error) error
	// EachTransaction calls fn for each ledger entry of a business made in
	// [from, to) (zero: no bound), in the order they were written.
	EachTransaction(ctx context.Context, businessID string, from, to time.Time, fn func(Transaction) error) error
}
