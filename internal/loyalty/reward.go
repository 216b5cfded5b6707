package loyalty

import (
	"slices"
	"time"
)

// Reward kinds.
const (
	CatalogItem  = "catalog_item"
	CustomReward = "custom_reward"
)

// Reward types of the reference platform (type_id), for catalog items.
const (
	RewardFreeProduct = 15 // real_value: the free item's value
	RewardCashback    = 16 // amount: the money off, or gift-card balance
	RewardPercentage  = 18 // discount_value: percent off a purchase
)

// RewardTypes are the type_id codes a catalog item may have.
var RewardTypes = []int{RewardFreeProduct, RewardCashback, RewardPercentage}

// Who may redeem a reward (the reference's targeted_flag).
const (
	AudienceEveryone = 0 // every customer
	AudienceTargeted = 1 // the reward's targets (TargetIDs)
	AudienceTiers    = 2 // customers holding one of its tier levels (TierLevelIDs)
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

	TypeID            int   // RewardFreeProduct, RewardCashback, RewardPercentage; 0 for none
	RealValue         Money // free product: the item's value
	Amount            Money // cashback: the money a redemption gives
	DiscountValue     Money // percentage: percent off, in hundredths
	RedeemForGiftCard bool  // cashback: a redemption credits Amount as gift-card balance
	Audience          int
	StartsAt          time.Time // publish_at; zero: since it was created
	ExternalID        string
	Texts             []CatalogText
	BranchIDs         []string // empty: every branch
	TargetIDs         []string // AudienceTargeted: who may redeem it
	TierLevelIDs      []int64  // AudienceTiers: the levels whose holders may redeem it
}

// Available reports whether the reward can be redeemed at now: enabled,
// published and not expired.
func (r Reward) Available(now time.Time) bool {
	return r.Enabled && !r.Deleted && !r.StartsAt.After(now) && (r.ExpiresAt.IsZero() || r.ExpiresAt.After(now))
}

// OpenTo reports whether a customer holding the tier level levelID (0 for
// none) may redeem the reward.
func (r Reward) OpenTo(customerID string, levelID int64) bool {
	switch r.Audience {
	case AudienceTargeted:
		return slices.Contains(r.TargetIDs, customerID)
	case AudienceTiers:
		return levelID != 0 && slices.Contains(r.TierLevelIDs, levelID)
	}
	return true
}

// AvailableAt reports whether the reward can be redeemed at a branch.
func (r Reward) AvailableAt(branchID string) bool {
	return len(r.BranchIDs) == 0 || slices.Contains(r.BranchIDs, branchID)
}

// Value returns what redeeming quantity of the reward gives in money: the
// free product's value, or the cashback amount, of which the gift-card
// part is credited to the customer's gift-card balance. A percentage
// gives no amount of its own: its discount applies to a purchase the
// service does not see.
func (r Reward) Value(quantity int64) (amount, giftcard Money) {
	switch r.TypeID {
	case RewardFreeProduct:
		amount = r.RealValue * Money(quantity)
	case RewardCashback:
		amount = r.Amount * Money(quantity)
		if r.RedeemForGiftCard {
			giftcard = amount
		}
	}
	return amount, giftcard
}
