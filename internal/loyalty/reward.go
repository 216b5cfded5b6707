package loyalty

import "time"

// Reward kinds.
const (
	CatalogItem  = "catalog_item"
	CustomReward = "custom_reward"
)

// Reward is something a customer can redeem points for: a catalog item or
// a custom reward.
type Reward struct {
	ID            int64
	BusinessID    string
	Kind          string
	Title         string
	Description   string
	Points        int64
	PartnerReward bool
	Images        []Image
	Enabled       bool
	ExpiresAt     time.Time
	Deleted       bool
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Available reports whether the reward can be redeemed at now.
func (r Reward) Available(now time.Time) bool {
	return r.Enabled && !r.Deleted && (r.ExpiresAt.IsZero() || r.ExpiresAt.After(now))
}
