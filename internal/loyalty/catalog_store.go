package loyalty

import (
	"context"
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
	// Reward returns one catalog item or custom reward with its branches,
	// targets and tier levels.
	Reward(ctx context.Context, businessID string, id int64) (Reward, error)
	// Rewards pages the rewards of a business, oldest first.
	Rewards(ctx context.Context, businessID string, q ListQuery) ([]Reward, int, error)
	// Giftcard returns one gift card with its branches.
	Giftcard(ctx context.Context, businessID string, id int64) (Giftcard, error)
	// Giftcards pages the gift cards of a business, oldest first.
	Giftcards(ctx context.Context, businessID string, q ListQuery) ([]Giftcard, int, error)
	// AllOffers returns every offer of a business that is not deleted,
	// oldest first, with its branches (not its targets): what a customer's
	// offers are decided from (CustomerOffersOf).
	AllOffers(ctx context.Context, businessID string) ([]Offer, error)
	// CustomerCoupons returns every coupon of a customer, oldest first,
	// each with its offer, deleted or not.
	CustomerCoupons(ctx context.Context, businessID, customerID string) ([]Coupon, error)
	// CustomerOfferFacts is OfferFinder's: the customer's part in offers.
	CustomerOfferFacts(ctx context.Context, customerID string, offerIDs []int64, periods []string) (OfferFacts, error)
	// CouponByCode returns the coupon of a business with the qrcode, or
	// ENotFound.
	CouponByCode(ctx context.Context, businessID, code string) (Coupon, error)
}

// CatalogTx is the part of a transaction that writes the catalog. Updates
// write every field, branch list and target list of the object; a Deleted
// object is stamped deleted at its UpdatedAt and keeps its lists.
type CatalogTx interface {
	// MainBranch returns the business's main branch.
	MainBranch(ctx context.Context, businessID string) (Branch, error)
	// InsertBranch stores a new branch that is not the main one.
	InsertBranch(ctx context.Context, b *Branch) error
	// UpdateBranch stores a branch's name, web site and address.
	UpdateBranch(ctx context.Context, b *Branch) error
	// InsertOffer stores a new offer with its branches and targets, setting o.ID.
	InsertOffer(ctx context.Context, o *Offer) error
	// UpdateOffer writes an offer.
	UpdateOffer(ctx context.Context, o *Offer) error
	// UseOffer records a customer's use of a limited offer in a period
	// (Offer.UsePeriod); it reports false when the customer has used it in
	// that period already.
	UseOffer(ctx context.Context, offerID int64, customerID, period string, at time.Time) (bool, error)
	// InsertReward stores a new reward with its branches, targets and
	// tier levels, setting r.ID.
	InsertReward(ctx context.Context, r *Reward) error
	// UpdateReward writes a reward.
	UpdateReward(ctx context.Context, r *Reward) error
	// InsertGiftcard stores a new gift card with its branches, setting g.ID.
	InsertGiftcard(ctx context.Context, g *Giftcard) error
	// UpdateGiftcard writes a gift card.
	UpdateGiftcard(ctx context.Context, g *Giftcard) error
}
