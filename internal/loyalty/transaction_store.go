package loyalty

import (
	"context"
	"time"
)

// TransactionTx is the part of a transaction that moves balances and reads
// what the engine's rules need.
type TransactionTx interface {
	Rules(ctx context.Context, b Business) (Rules, error)
	SaveRules(ctx context.Context, r Rules) error
	OfferFinder
	// Append writes an entry and moves the customer's balance by its points
	// and gift-card amounts under the one balance rule (an active customer
	// of the business, the entry's branch one of the business's, neither
	// balance below zero), refusing with Refused(reason) otherwise. It sets
	// t.ID, t.Balance and t.ReferralPending.
	Append(ctx context.Context, t *Transaction) error
	Transaction(ctx context.Context, businessID string, id int64) (Transaction, error)
	Branch(ctx context.Context, businessID, branchID string) (Branch, error)
	Reward(ctx context.Context, businessID string, id int64) (Reward, error)
	Offer(ctx context.Context, businessID string, id int64) (Offer, error)
	Giftcard(ctx context.Context, businessID string, id int64) (Giftcard, error)
	Coupon(ctx context.Context, businessID string, id int64) (Coupon, error)
	InsertCoupon(ctx context.Context, c *Coupon) error
	// ClaimCoupon moves the coupon from the state read (from, and unlocked,
	// not taken back) to c's (claimed) state; it reports false, writing nothing, when the
	// coupon is no longer in that state (another claim won, or it was
	// locked meanwhile).
	ClaimCoupon(ctx context.Context, c *Coupon, from int) (bool, error)
	// EntryCoupons returns the coupons a reward issued (Coupon.EntryID).
	EntryCoupons(ctx context.Context, businessID string, entryID int64) ([]Coupon, error)
	// TakeBackCoupon marks the coupon taken back at c.TakenBackAt if it is
	// still in the state read (its type, lock, not taken back); it
	// reports false, writing nothing, otherwise.
	TakeBackCoupon(ctx context.Context, c *Coupon) (bool, error)
	// PendingReferral returns the unpaid referral of a referee with its program.
	PendingReferral(ctx context.Context, businessID, refereeID string) (Referral, ReferralProgram, error)
	// SettleReferral marks a referral settled once, with its outcome
	// (ReferralPaid, ReferralExpired or ReferralForfeited);
	// it reports false when it was already settled.
	SettleReferral(ctx context.Context, r Referral, outcome string) (bool, error)
	// BeginIdempotent records a new idempotency key (EConflict if it
	// exists), forgetting the business's keys older than IdempotencyKeyTTL.
	BeginIdempotent(ctx context.Context, businessID, key string, hash []byte) error
	// FinishIdempotent stores what the request under the key gave, in
	// the given format (see IdempotentRecord).
	FinishIdempotent(ctx context.Context, businessID, key string, format int, body []byte) error
	// Try runs fn as a part of the transaction that can fail on its own:
	// when fn returns an error, everything fn wrote is undone and the
	// transaction goes on as before fn (a savepoint).
	Try(ctx context.Context, fn func() error) error
}

// OfferFinder reads what a reward's points are decided from: its offers
// (ApplicableOffers) and its earning rules (earn).
type OfferFinder interface {
	// PointsOffers returns every multiplier and bonus-points offer of the
	// business that is not deleted, with its branches (not its targets).
	PointsOffers(ctx context.Context, businessID string) ([]Offer, error)
	// CustomerOfferFacts returns, of the offers offerIDs, the ones whose
	// targets include the customer and the periods among periods in
	// which the customer used each.
	CustomerOfferFacts(ctx context.Context, customerID string, offerIDs []int64, periods []string) (OfferFacts, error)
	// MainBranch returns the business's main branch.
	MainBranch(ctx context.Context, businessID string) (Branch, error)
	// EarningRules returns every earning rule of the business that is
	// not deleted.
	EarningRules(ctx context.Context, businessID string) ([]EarningRule, error)
	// EarningRuleUsage returns the customer's uses of the rules in uses
	// (none when customerID is "") and the points given by the budgets
	// in budgets, each in the period named; a counter never written is 0.
	EarningRuleUsage(ctx context.Context, customerID string, uses, budgets []RulePeriod) (RuleUsage, error)
	// CustomerPurchaseFacts returns a customer's birth date and whether
	// it has a reward for a spend (Purchased); none of a customer not
	// found.
	CustomerPurchaseFacts(ctx context.Context, businessID, customerID string) (CustomerFacts, error)
	// CampaignsReached returns when each of the campaigns recorded the
	// outcome reached for the customer, by campaign; a campaign that did
	// not is absent.
	CampaignsReached(ctx context.Context, businessID, customerID string, campaignIDs []int64, reached string) (map[int64]time.Time, error)
	// PunchCards returns every live punch card of the business.
	PunchCards(ctx context.Context, businessID string) ([]PunchCard, error)
	// OffersByID returns the offers of a business with those ids, deleted
	// or not, with their branches (not their targets), by id.
	OffersByID(ctx context.Context, businessID string, ids []int64) (map[int64]Offer, error)
}

// TransactionReader reads the ledger.
type TransactionReader interface {
	OfferFinder
	// CustomerTransactions pages a customer's entries, newest first.
	CustomerTransactions(ctx context.Context, businessID, customerID string, q ListQuery) ([]Transaction, int, error)
	// Transactions pages a business's entries, newest first.
	Transactions(ctx context.Context, businessID string, q ListQuery) ([]Transaction, int, error)
	// ReversalsOf returns the entries of a business that reverse one of ids.
	ReversalsOf(ctx context.Context, businessID string, ids []int64) ([]Transaction, error)
	// CouponByID returns one coupon of a business with its offer.
	CouponByID(ctx context.Context, businessID string, id int64) (Coupon, error)
	// IdempotentReply returns the record stored under a key within
	// IdempotencyKeyTTL, or ENotFound.
	IdempotentReply(ctx context.Context, businessID, key string) (IdempotentRecord, error)
	// CustomersByID returns the customers of a business with the given
	// ids, deleted ones too, by id (for the ledger's relationships=customer).
	CustomersByID(ctx context.Context, businessID string, ids []string) (map[string]Customer, error)
	// TierTotals sums a customer's tier spend, points and visits in [from, to).
	TierTotals(ctx context.Context, businessID, customerID string, from, to time.Time) (TierTotals, error)
	Rules(ctx context.Context, b Business) (Rules, error)
}

// TierTotals are what a customer did within a tier period.
type TierTotals struct {
	Amount Money
	Points int64
	Visits int64
}
