package loyalty

import "time"

// Giftcard is a prepaid card a customer buys: RealValue is its price,
// DiscountValue the store credit it gives.
type Giftcard struct {
	ID            int64
	BusinessID    string
	Title         string
	Description   string
	Points        int64
	DiscountValue Money
	RealValue     Money
	MultipFactor  Money
	Images        []Image
	Enabled       bool
	ExpiresAt     time.Time
	BranchIDs     []string
	Deleted       bool
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Available reports whether the gift card can be bought at now.
func (g Giftcard) Available(now time.Time) bool {
	return g.Enabled && !g.Deleted && (g.ExpiresAt.IsZero() || g.ExpiresAt.After(now))
}
