package loyalty

import (
	"context"
	"time"
)

// TierReader reads tier programs, what the keeper holds and the ledger's
// tier totals outside a transaction.
type TierReader interface {
	// Tier returns one tier program of a business with its levels, or ENotFound.
	Tier(ctx context.Context, businessID string, id int64) (Tier, error)
	// TierPage pages the tier programs of a business, oldest first, with
	// their levels.
	TierPage(ctx context.Context, businessID string, q ListQuery) ([]Tier, int, error)
	// CustomerTiers reads what the tier keeper holds for these customers
	// in a program; a customer without a row is left out.
	CustomerTiers(ctx context.Context, businessID string, tierID int64, ids []string) (map[string]CustomerTier, error)
	// Now is the store's clock, in UTC whole seconds: the time a read
	// computes tier periods at, as a change would.
	Now() time.Time
	// Tiers lists the tiers of a business, with their levels.
	Tiers(ctx context.Context, businessID string) ([]Tier, error)
	// TierTotalsOf sums, for each customer of ids, the spend, tier points
	// and visits of the ledger in [from, to).
	TierTotalsOf(ctx context.Context, businessID string, ids []string, from, to time.Time) (map[string]TierTotals, error)
}

// TierTx is the part of a transaction that changes tier programs.
type TierTx interface {
	// LockPrograms makes concurrent changes to a business's tier and
	// referral programs wait for each other, so that "one enabled at a
	// time" holds.
	LockPrograms(ctx context.Context, businessID string) error
	// Tier returns one tier program of a business with its levels, or ENotFound.
	Tier(ctx context.Context, businessID string, id int64) (Tier, error)
	// InsertTier stores a new program and its levels in order, setting
	// every ID.
	InsertTier(ctx context.Context, t *Tier) error
	// UpdateTier stores a program's fields and makes its levels exactly
	// t.Levels, in order: a level with an ID is updated, one without is
	// inserted (its ID set), and the levels not listed are removed.
	UpdateTier(ctx context.Context, t *Tier) error
	// DisableTiers disables every program of the business but exceptID.
	DisableTiers(ctx context.Context, businessID string, exceptID int64) error
}
