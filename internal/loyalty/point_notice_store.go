package loyalty

import (
	"context"
	"time"
)

// NoticeTx is the part of a transaction that tells customers their points
// expire soon.
type NoticeTx interface {
	// NoticeLots locks the customer's row and returns its pending and
	// active lots whose notice time came at at, and whether the customer
	// wants to be told.
	NoticeLots(ctx context.Context, k CustomerKey, at time.Time) ([]PointLot, bool, error)
	// RecordNotice records that a customer was told of an expiry; false
	// when it was already.
	RecordNotice(ctx context.Context, k CustomerKey, expiresAt time.Time) (bool, error)
	// NoticeDone clears the notice time of lots.
	NoticeDone(ctx context.Context, lotIDs []int64) error
}

// NoticeStore finds the customers to tell and keeps their preference.
type NoticeStore interface {
	// DueNoticeCustomers returns up to limit customers with a lot whose
	// notice time came at at, of one business or ("") of all.
	DueNoticeCustomers(ctx context.Context, businessID string, at time.Time, limit int) ([]CustomerKey, error)
	// ExpiryNotices reports whether a person wants expiry notices from the
	// businesses (true unless every membership among them said no).
	ExpiryNotices(ctx context.Context, userID string, businessIDs []string) (bool, error)
	// SetExpiryNotices sets the preference on the person's memberships of the businesses.
	SetExpiryNotices(ctx context.Context, userID string, businessIDs []string, on bool) error
}
