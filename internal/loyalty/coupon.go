package loyalty

import (
	"slices"
	"time"
)

// Coupon states (spec 2.6).
const (
	CouponRegular             = 74
	CouponRegularRedeemed     = 75
	CouponConvertible         = 91
	CouponConvertibleRedeemed = 92
)

// A coupon is issued in one state of CouponIssued and moves, once
// claimed, to the matching state of CouponClaimed.

// CouponIssued are the states of a coupon issued and not yet claimed
// (available until it expires).
func CouponIssued() []int { return []int{CouponRegular, CouponConvertible} }

// CouponClaimed are the states of a claimed coupon.
func CouponClaimed() []int { return []int{CouponRegularRedeemed, CouponConvertibleRedeemed} }

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
	// EntryID is the reward that issued the coupon (a coupon rule, or a
	// punch card it filled: PunchCardID), 0 for one issued otherwise; a
	// return of all of that reward, or its cancellation, takes it back
	// while unused (TakenBackAt).
	EntryID     int64
	PunchCardID int64
	TakenBackAt time.Time
}

// CustomerOffer is one offer as one customer sees it. The list holds the
// active offers open to the customer (targeted ones only for their
// targets, offers of one use per customer only until used) and every
// other offer the customer holds an available or a claimed coupon of;
// deleted offers are never in it.
type CustomerOffer struct {
	Offer
	// CouponTypeID is the state of the customer's coupons of the offer: 74
	// or 91 while one is available (unclaimed, unexpired), otherwise 75 or
	// 92 once one was claimed, 0 when the customer has none of either.
	CouponTypeID int
	// IsTarget reports whether the customer is among the offer's targets.
	IsTarget bool
	// Used reports whether the customer used a limited offer (Offer.Limited)
	// in its period.
	Used bool
	// Actions are what the customer can do with the offer now (get_coupon).
	Actions []string
}

// CanGetCoupon reports whether the customer may get a coupon of the offer
// now: the get_coupon action of the customer's offer list.
func (c CustomerOffer) CanGetCoupon(now time.Time) bool {
	return c.CouponOffer() && c.Active(now) && (!c.Targeted || c.IsTarget) && !c.Used
}

// Available reports whether a coupon can still be claimed at now: not yet
// claimed, not expired and not taken back. A locked coupon is available
// but shows locked.
func (c Coupon) Available(now time.Time) bool {
	return slices.Contains(CouponIssued(), c.CouponTypeID) && (c.ExpiresAt.IsZero() || c.ExpiresAt.After(now)) && c.TakenBackAt.IsZero()
}

// Claimed reports whether the coupon has been claimed.
func (c Coupon) Claimed() bool { return slices.Contains(CouponClaimed(), c.CouponTypeID) }

// Coupon type ids a customer-offer filter may name.
var couponStates = []int64{CouponRegular, CouponRegularRedeemed, CouponConvertible, CouponConvertibleRedeemed}

// CustomerOfferSpec says how GET /customers/{id}/offers is paged and filtered.
var CustomerOfferSpec = ListSpec{
	Fields:         map[string]FilterKind{"coupon_type_id": KindInt, "branch.id": KindString},
	Reserved:       []string{"relationships"},
	DefaultPerPage: 15,
}

// CustomerCouponSpec says how GET /customers/{id}/available-coupons is paged.
var CustomerCouponSpec = ListSpec{DefaultPerPage: 15}

// checkCouponFilter allows only eq, in and not_in on the coupon states,
// and eq and in on branch.id (the offers available at those branches).
func checkCouponFilter(q ListQuery) error {
	for _, f := range q.Filters {
		if f.Field == "branch.id" {
			if f.Op != OpEq && f.Op != OpIn {
				return Errorf(EBadRequest, "The filter branch.id takes the operators eq and in.")
			}
			continue
		}
		if f.Op != OpEq && f.Op != OpIn && f.Op != OpNotIn {
			return Errorf(EBadRequest, "The filter coupon_type_id takes the operators eq, in and not_in.")
		}
		for _, v := range f.Values {
			if n, _ := v.(int64); !slices.Contains(couponStates, n) {
				return Errorf(EBadRequest, "The filter coupon_type_id takes the values 74, 75, 91 and 92.")
			}
		}
	}
	return nil
}
