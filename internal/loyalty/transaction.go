package loyalty

import (
	"encoding/json"
	"strings"
	"time"
)

// Intents of POST /transactions, and the entries the service writes itself.
const (
	IntentReward       = "reward"
	IntentRedeem       = "redeem"
	IntentReturn       = "return"
	IntentAdjust       = "adjust_points_balance"
	IntentGetCoupon    = "get_coupon"
	IntentClaimCoupon  = "claim_coupon"
	IntentGiftcardBuy  = "purchase_giftcard_prepaid"
	IntentGiftcardPay  = "giftcard_payment"
	IntentStoreCredit  = "reward_store_credit"
	IntentReferral     = "reward_referral"
	IntentRefund       = "refund_redeemed_points"
	IntentWelcome      = "welcome"
	IntentCancellation = "cancellation"
	IntentActivation   = "points_activation"
	IntentExpiry       = "points_expiry"
	IntentTransferOut  = "points_transfer_sent"     // a member sent points (internal: the user API's transfers)
	IntentTransferIn   = "points_transfer_received" // a member received points, or got back points they sent
)

// Intents lists what a client may ask POST /transactions to do.
var Intents = []string{IntentReward, IntentRedeem, IntentReturn, IntentAdjust, IntentGetCoupon, IntentClaimCoupon,
	IntentGiftcardBuy, IntentGiftcardPay, IntentStoreCredit, IntentReferral, IntentRefund}

// NewLotEntry starts the activation or expiry entry of a lot, dated when it
// happened (its due time, even when written later).
func NewLotEntry(businessID, customerID, intent string, lotID int64, at time.Time) Transaction {
	e := Transaction{BusinessID: businessID, CustomerID: customerID, Intent: intent, LotID: lotID, CreatedAt: at}
	e.setType(intentTypes[intent])
	return e
}

// TransactionDetails are the business's own references on a transaction.
type TransactionDetails struct {
	ExternalOrderID string `json:"external_order_id"`
	CustomField1    string `json:"custom_field_1"`
	CustomField2    string `json:"custom_field_2"`
	CustomField3    string `json:"custom_field_3"`
	CustomField4    string `json:"custom_field_4"`
	CustomField5    string `json:"custom_field_5"`
}

// TransactionItem is one catalog item of a redemption.
type TransactionItem struct {
	RewardID int64
	Quantity int64
	Points   int64   // points of the whole line
	Reward   *Reward // the item redeemed, on the redemption's reply
}

// Transaction is one ledger entry: what moved a customer's balance, by how
// much, and why. Entries are never changed; a cancellation is an entry too.
type Transaction struct {
	ID         int64
	BusinessID string
	CustomerID string
	BranchID   string
	Intent     string
	TypeCode   int
	Name       string
	Amount     Money // the money the transaction is about (spend, payment, credit)
	Points     int64 // points moved: positive earned, negative spent
	Giftcard   Money // gift-card balance moved
	Visits     int64
	TierAmount Money // spend counted towards tiers
	TierPoints int64 // points counted towards tiers (earned, never spent)
	OfferID    int64
	CouponID   int64
	GiftcardID int64
	ReversesID int64
	// ReturnsID is, for a return by item, the reward it returns units of
	// (kept on its basket: a reward may have several returns, and one
	// cancellation, ReversesID).
	ReturnsID int64
	Details   *TransactionDetails
	Items     []TransactionItem
	Receipt   string // the number of the business's receipt for it
	Comments  string
	CreatedAt time.Time
	// Pending is the part of Points that moved pending points rather than
	// active ones: all of a reward still in its return window, or what a
	// return or cancellation took from, or gave back to, pending lots.
	Pending int64
	// Expired is the points this entry expired (an expiry entry's share
	// of the customer's expired points), 0 for every other entry.
	Expired int64
	LotID   int64 // the lot an activation or expiry is about
	// Terms are when the lot of an earning entry activates and expires
	// (settle sets them); TakePending makes a spending entry take from the
	// customer's pending lots, newest first, before the active ones.
	Terms       PointsTerms
	TakePending bool

	Balance         Balance // the customer's balance after this entry (on create)
	ReferralPending bool    // set by Append: the customer has an unpaid referral
	Coupon          *Coupon // the coupon a get_coupon or claim_coupon touched
	Basket          *Basket // what a reward's basket held, when it sent one
	// Applied are, for a reward by amount, the rules that gave its points
	// as the earning engine decided them (its reply shows them; the
	// idempotency record keeps them for a retry).
	Applied []Outcome

	// Event, when set, builds the event of the entry once the store gave
	// it its id, for Store.AppendAlone to write in the entry's own change.
	Event func(Transaction) (Event, error) `json:"-"`
}

// newEntry starts an entry of intent for a customer.
func newEntry(b Business, customerID, intent string, now time.Time) Transaction {
	e := Transaction{BusinessID: b.ID, CustomerID: customerID, Intent: intent, CreatedAt: now}
	e.setType(intentTypes[intent])
	return e
}

// IntRef names an object with an integer id.
type IntRef struct {
	ID Opt[int64] `json:"id"`
}

// StringRef names an object with an opaque id.
type StringRef struct {
	ID Opt[string] `json:"id"`
}

// ItemInput is one line of a catalog redemption.
type ItemInput struct {
	ID       Opt[int64] `json:"id"`
	Quantity Opt[int64] `json:"quantity"`
}

// TransactionInput is the body of POST /transactions.
type TransactionInput struct {
	Intent       Opt[string]             `json:"intent"`
	Type         Opt[string]             `json:"type"` // the reference platform's name for intent
	Amount       Opt[Money]              `json:"amount"`
	Points       Opt[int64]              `json:"points"`
	Visits       Opt[int64]              `json:"visits"`
	Customer     Opt[CustomerRef]        `json:"customer"`
	Branch       Opt[StringRef]          `json:"branch"`
	Offer        Opt[IntRef]             `json:"offer"`
	Coupon       Opt[IntRef]             `json:"coupon"`
	Giftcard     Opt[IntRef]             `json:"giftcard"`
	CatalogItems Opt[[]ItemInput]        `json:"catalog_items"`
	Details      Opt[TransactionDetails] `json:"transaction_details"`
	CreatedAt    Opt[string]             `json:"created_at"` // when it happened, for imports; never in the future
	Receipt      Opt[ReceiptInput]       `json:"receipt"`
	Comments     Opt[string]             `json:"comments"`
	// Employee and ProductRewards are the reference platform's; neither
	// exists here, so a request that uses them is refused.
	Employee       Opt[EmployeeRef]       `json:"employee"`
	ProductRewards Opt[[]json.RawMessage] `json:"product_rewards"`
	// A reward's basket (basket.go).
	Items    Opt[[]BasketItemInput] `json:"items"`
	Tax      Opt[Money]             `json:"tax"`
	Shipping Opt[Money]             `json:"shipping"`
	Channel  Opt[string]            `json:"channel"`
	// ReversesID names the reward a return by item returns units of.
	ReversesID Opt[int64] `json:"reverses_id"`
}

// ReceiptInput is the business's receipt a transaction is attached to.
type ReceiptInput struct {
	Number Opt[string] `json:"number"`
}

// EmployeeRef names the employee who made a transaction, by id or PIN.
type EmployeeRef struct {
	ID      Opt[json.RawMessage] `json:"id"`
	PinCode Opt[json.RawMessage] `json:"pin_code"`
}

// maxPoints bounds one entry's points so sums never overflow.
const maxPoints = 1_000_000_000

// intent returns the requested intent, checking it is one we know.
func (in *TransactionInput) intent(v Validation) string {
	intent, ok := in.Intent.Value()
	if !ok {
		intent, ok = in.Type.Value()
	}
	intent = strings.TrimSpace(intent)
	if !ok || intent == "" {
		v.Add("intent", "The intent field is required; one of: "+strings.Join(Intents, ", ")+".")
		return ""
	}
	for _, i := range Intents {
		if i == intent {
			return intent
		}
	}
	v.Add("intent", "The selected intent is invalid; one of: "+strings.Join(Intents, ", ")+".")
	return ""
}

// positiveAmount reads amount as a required positive sum of money.
func (in *TransactionInput) positiveAmount(v Validation) Money {
	a, ok := in.Amount.Value()
	switch {
	case !ok:
		v.Add("amount", "The amount field is required.")
	case a <= 0:
		v.Add("amount", "The amount must be greater than 0.")
	}
	return a
}

// details validates the transaction details, returning nil when absent.
func (in *TransactionInput) details(v Validation) *TransactionDetails {
	d, ok := in.Details.Value()
	if !ok {
		return nil
	}
	for name, s := range map[string]string{"external_order_id": d.ExternalOrderID, "custom_field_1": d.CustomField1,
		"custom_field_2": d.CustomField2, "custom_field_3": d.CustomField3, "custom_field_4": d.CustomField4, "custom_field_5": d.CustomField5} {
		if len(s) > 255 {
			v.Add("transaction_details."+name, "The "+name+" may not be greater than 255 characters.")
		}
	}
	return &d
}

// ref reads a required integer reference such as offer.id.
func ref(v Validation, field string, o Opt[IntRef]) int64 {
	r, ok := o.Value()
	id, idOK := r.ID.Value()
	if !ok || !idOK {
		v.Add(field+".id", "The "+field+" id is required.")
		return 0
	}
	if id <= 0 {
		v.Add(field+".id", "The "+field+" id must be a positive integer.")
	}
	return id
}
