package loyalty

import (
	"context"
	"slices"
	"time"
)

// CatalogReader reads what a business offers: branches, offers, rewards,
// gift cards, and a customer's offers and coupons. Deleted objects are
// never returned (ENotFound for a single read).
type CatalogReader interface {
	// Now is the store's current time, the time reads are judged at.
	Now() time.Time
	// BranchPage pages the branches of a business, the main one first.
	BranchPage(ctx context.Context, businessID string, q ListQuery) ([]Branch, int, error)
	// Offer returns one offer with its branches and targets.
	Offer(ctx context.Context, businessID string, id int64) (Offer, error)
	// Offers pages the offers of a business, oldest first, expired and
	// disabled ones included.
	Offers(ctx context.Context, businessID string, q ListQuery) ([]Offer, int, error)
	// Reward returns one catalog item or custom reward.
	Reward(ctx context.Context, businessID string, id int64) (Reward, error)
	// Rewards pages the rewards of a business, oldest first.
	Rewards(ctx context.Context, businessID string, q ListQuery) ([]Reward, int, error)
	// Giftcard returns one gift card with its branches.
	Giftcard(ctx context.Context, businessID string, id int64) (Giftcard, error)
	// Giftcards pages the gift cards of a business, oldest first.
	Giftcards(ctx context.Context, businessID string, q ListQuery) ([]Giftcard, int, error)
	// CustomerOffers pages the offers of one customer at now (see
	// CustomerOffer), oldest offer first. The coupon_type_id filter applies
	// to CustomerOffer.CouponTypeID, a missing state matching not_in.
	CustomerOffers(ctx context.Context, businessID, customerID string, now time.Time, q ListQuery) ([]CustomerOffer, int, error)
	// AvailableCoupons pages the coupons of a customer that are Available
	// at now, oldest first, each with its offer.
	AvailableCoupons(ctx context.Context, businessID, customerID string, now time.Time, q ListQuery) ([]Coupon, int, error)
}

// CatalogTx is the part of a transaction that writes the catalog. Updates
// write every field, branch list and target list of the object; a Deleted
// object is stamped deleted at its UpdatedAt and keeps its lists.
type CatalogTx interface {
	// InsertBranch stores a new branch that is not the main one.
	InsertBranch(ctx context.Context, b *Branch) error
	// InsertOffer stores a new offer with its branches and targets, setting o.ID.
	InsertOffer(ctx context.Context, o *Offer) error
	// UpdateOffer writes an offer.
	UpdateOffer(ctx context.Context, o *Offer) error
	// InsertReward stores a new reward, setting r.ID.
	InsertReward(ctx context.Context, r *Reward) error
	// UpdateReward writes a reward.
	UpdateReward(ctx context.Context, r *Reward) error
	// InsertGiftcard stores a new gift card with its branches, setting g.ID.
	InsertGiftcard(ctx context.Context, g *Giftcard) error
	// UpdateGiftcard writes a gift card.
	UpdateGiftcard(ctx context.Context, g *Giftcard) error
}

// CustomerOffer is one offer as one customer sees it. The list holds the
// active offers open to the customer (targeted ones only for their
// targets) and every other offer the customer holds an available or a
// claimed coupon of; deleted offers are never in it.
type CustomerOffer struct {
	Offer
	// CouponTypeID is the state of the customer's coupons of the offer: 74
	// or 91 while one is available (unclaimed, unexpired), otherwise 75 or
	// 92 once one was claimed, 0 when the customer has none of either.
	CouponTypeID int
	// IsTarget reports whether the customer is among the offer's targets.
	IsTarget bool
	// Actions are what the customer can do with the offer now (get_coupon).
	Actions []string
}

// CouponOffer reports whether the offer issues coupons (every type but the
// points offers, which apply to rewards by themselves).
func (o Offer) CouponOffer() bool {
	return o.TypeID != OfferPointsMultiplier && o.TypeID != OfferBonusPoints
}

// CanGetCoupon reports whether the customer may get a coupon of the offer
// now: the get_coupon action of the customer's offer list.
func (c CustomerOffer) CanGetCoupon(now time.Time) bool {
	return c.CouponOffer() && c.Active(now) && (!c.Targeted || c.IsTarget)
}

// Available reports whether a coupon can still be claimed at now: not yet
// claimed and not expired. A locked coupon is available but shows locked.
func (c Coupon) Available(now time.Time) bool {
	return (c.CouponTypeID == CouponRegular || c.CouponTypeID == CouponConvertible) &&
		(c.ExpiresAt.IsZero() || c.ExpiresAt.After(now))
}

// Coupon type ids a customer-offer filter may name.
var couponStates = []int64{CouponRegular, CouponRegularRedeemed, CouponConvertible, CouponConvertibleRedeemed}

// CustomerOfferSpec says how GET /customers/{id}/offers is paged and filtered.
var CustomerOfferSpec = ListSpec{
	Fields:         map[string]FilterKind{"coupon_type_id": KindInt},
	Reserved:       []string{"relationships"},
	DefaultPerPage: 15,
}

// CustomerCouponSpec says how GET /customers/{id}/available-coupons is paged.
var CustomerCouponSpec = ListSpec{DefaultPerPage: 15}

// checkCouponFilter allows only eq, in and not_in on the coupon states.
func checkCouponFilter(q ListQuery) error {
	for _, f := range q.Filters {
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
