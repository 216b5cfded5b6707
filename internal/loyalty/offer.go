package loyalty

import (
	"slices"
	"time"
)

// Offer type ids (spec 2.5).
const (
	OfferPointsMultiplier = 1
	OfferFreeProduct      = 2
	OfferBonusPoints      = 3
	OfferBasic8           = 8
	OfferBasic9           = 9
	OfferBasic10          = 10
)

// OfferOnce is the offer_frequency_id of an offer each customer may use
// once (the others are in offer_frequency.go).
const OfferOnce = 4

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
	// MinPurchase and MaxPurchase bound the purchase an offer applies to:
	// the reward's amount for a points offer, the claim's amount for a
	// coupon. MaxPurchase 0 is no maximum.
	MinPurchase, MaxPurchase Money
	Frequency                int // 0: no limit; else an offer_frequency_id (offer_frequency.go)
	// Days (1 Monday to 7 Sunday) and PeakFrom, PeakTo ("15:04", local
	// time) are the window of a day-and-time offer (OfferDayTime).
	Days             []int
	PeakFrom, PeakTo string
	CouponExpiresIn  int64 // days an issued coupon lives; 0: as long as the offer
	ExternalID       string
	Texts            []CatalogText // per language; see CatalogText
	Deleted          bool
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Active reports whether the offer can be used at now.
func (o Offer) Active(now time.Time) bool {
	return o.Enabled && !o.Deleted && !o.StartsAt.After(now) && (o.ExpiresAt.IsZero() || o.ExpiresAt.After(now))
}

// AppliesTo reports whether a purchase of amount is within the offer's
// purchase range.
func (o Offer) AppliesTo(amount Money) bool {
	return amount >= o.MinPurchase && (o.MaxPurchase == 0 || amount <= o.MaxPurchase)
}

// HasPurchaseRange reports whether the offer names a purchase range.
func (o Offer) HasPurchaseRange() bool { return o.MinPurchase > 0 || o.MaxPurchase > 0 }

// CouponExpiry returns when a coupon of the offer issued at now expires:
// coupon_expires_in days after, but never after the offer; zero is never.
func (o Offer) CouponExpiry(now time.Time) time.Time {
	if o.CouponExpiresIn <= 0 {
		return o.ExpiresAt
	}
	end := now.AddDate(0, 0, int(o.CouponExpiresIn))
	if !o.ExpiresAt.IsZero() && o.ExpiresAt.Before(end) {
		return o.ExpiresAt
	}
	return end
}

// PointsOfferTypes are the offer types that add points to a reward by
// themselves (a multiplier, bonus points); every other type issues coupons.
// The store reads an offer as a points offer by this list.
func PointsOfferTypes() []int { return []int{OfferPointsMultiplier, OfferBonusPoints} }

// CouponOffer reports whether the offer issues coupons (every type but the
// points offers, which apply to rewards by themselves).
func (o Offer) CouponOffer() bool { return !slices.Contains(PointsOfferTypes(), o.TypeID) }

// purchaseRange describes an offer's purchase range in words, in the
// business's currency.
func purchaseRange(b Business, o Offer) string {
	if o.MaxPurchase == 0 {
		return "at least " + b.FormatMoney(o.MinPurchase)
	}
	return b.FormatMoney(o.MinPurchase) + " to " + b.FormatMoney(o.MaxPurchase)
}

// cmpOr returns err when it is not nil, else alt.
func cmpOr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}
