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

// CouponOffer reports whether the offer issues coupons (every type but the
// points offers, which apply to rewards by themselves).
func (o Offer) CouponOffer() bool {
	return o.TypeID != OfferPointsMultiplier && o.TypeID != OfferBonusPoints
}
