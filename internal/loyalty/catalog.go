package loyalty

import "time"

// Offer type ids (spec 2.5).
const (
	OfferPointsMultiplier = 1
	OfferFreeProduct      = 2
	OfferBonusPoints      = 3
	OfferBasic8           = 8
	OfferBasic9           = 9
	OfferBasic10          = 10
)

// Coupon states (spec 2.6).
const (
	CouponRegular             = 74
	CouponRegularRedeemed     = 75
	CouponConvertible         = 91
	CouponConvertibleRedeemed = 92
)

// Image is a picture of an offer, reward or gift card.
type Image struct {
	Default bool   `json:"default"`
	Path    string `json:"path"`
}

// Offer is a promotion: a points multiplier or bonus applied to rewards, or
// a coupon offer (free product, percentage or amount off).
type Offer struct {
	ID            int64
	BusinessID    string
	TypeID        int
	Title         string
	Description   string
	Points        int64 // bonus points (type 3), or the points a coupon costs
	MultipFactor  Money // hundredths: 150 multiplies points by 1.5
	DiscountValue Money
	RealValue     Money
	CouponKind    int // CouponRegular or CouponConvertible
	Targeted      bool
	Images        []Image
	Enabled       bool
	StartsAt      time.Time
	ExpiresAt     time.Time // zero: never
	BranchIDs     []string  // empty: every branch
	TargetIDs     []string  // customers a targeted offer is for
	Deleted       bool
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Active reports whether the offer can be used at now.
func (o Offer) Active(now time.Time) bool {
	return o.Enabled && !o.Deleted && !o.StartsAt.After(now) && (o.ExpiresAt.IsZero() || o.ExpiresAt.After(now))
}

// Coupon is an offer issued to one customer.
type Coupon struct {
	ID           int64
	BusinessID   string
	OfferID      int64
	CustomerID   string
	QRCode       string
	CouponTypeID int
	Locked       bool
	ExpiresAt    time.Time
	ClaimedAt    time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Offer        Offer
}

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
