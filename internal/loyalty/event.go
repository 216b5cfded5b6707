package loyalty

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Event types: what changed, as integrators subscribe to it.
const (
	EventCustomerCreated      = "customer.created"
	EventCustomerUpdated      = "customer.updated"
	EventCustomerDeleted      = "customer.deleted"
	EventCustomerErased       = "customer.erased" // a customer's personal data was erased (data: {customer: {id}})
	EventCustomerEnabled      = "customer.enabled"
	EventCustomerDisabled     = "customer.disabled"
	EventTransactionCreated   = "transaction.created"
	EventTransactionCancelled = "transaction.cancelled"
	EventCouponIssued         = "coupon.issued"
	EventCouponClaimed        = "coupon.claimed"
	EventCouponTakenBack      = "coupon.taken_back"
	EventReferralPaid         = "referral.paid"
	EventUserCreated          = "user.created"
	EventUserVerified         = "user.verified"
	EventPointsActivated      = "points.activated"    // a pending lot became usable (data: the activation entry)
	EventPointsExpired        = "points.expired"      // what remained of a lot expired (data: the expiry entry)
	EventTierChanged          = "tier.changed"        // a customer's tier level went up or down (data: tierChangeJSON)
	EventVoucherIssued        = "voucher.issued"      // a member redeemed a reward (data: VoucherJSON)
	EventVoucherHandedOver    = "voucher.handed_over" // the counter handed a voucher's reward over
	EventVoucherReturned      = "voucher.returned"    // a voucher's points were given back (it expired, or its redemption was cancelled)
)

// EventTypes lists every event type, for the type filter of GET /events.
var EventTypes = []string{EventCustomerCreated, EventCustomerUpdated, EventCustomerDeleted, EventCustomerErased, EventCustomerEnabled,
	EventCustomerDisabled, EventTransactionCreated, EventTransactionCancelled, EventCouponIssued, EventCouponClaimed, EventCouponTakenBack,
	EventReferralPaid, EventUserCreated, EventUserVerified, EventPointsActivated, EventPointsExpired, EventTierChanged,
	EventVoucherIssued, EventVoucherHandedOver, EventVoucherReturned,
	EventTransferSent, EventTransferReceived, EventTransferRecalled, EventTransferReturned}

// EventRetention is how long events are kept at least: a reader (or a
// delivery) that falls further behind loses the oldest.
const EventRetention = 30 * 24 * time.Hour

// Event is a change an integrator cares about, written in the transaction
// that made it. Seq numbers a business's events from 1 without gaps, in
// the order readers see them; it is 0 until the event is numbered (see
// EventStore.SequenceEvents), and only numbered events are read.
type Event struct {
	ID         string // the same id wherever the event is delivered
	BusinessID string
	Seq        int64
	Type       string
	CreatedAt  time.Time
	Data       json.RawMessage // the resource as the API shows it
	// EntryID, when set, is the ledger entry the event shows: the store
	// keeps the reference, not a copy, and reads render the entry into
	// Data (transaction.created of the reward batch's entries).
	EntryID int64
}

// Unrendered reports whether the event holds only the reference to its
// ledger entry (EntryID), not the entry rendered into Data yet.
func (e Event) Unrendered() bool { return e.EntryID != 0 && len(e.Data) == 0 }

// Entry returns the id of the ledger entry a transaction event shows:
// its reference, or the id in its data.
func (e Event) Entry() (int64, error) {
	if e.EntryID != 0 {
		return e.EntryID, nil
	}
	var ref struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(e.Data, &ref); err != nil {
		return 0, fmt.Errorf("event %s: entry id: %w", e.ID, err)
	}
	if ref.ID == 0 {
		return 0, fmt.Errorf("event %s names no entry", e.ID)
	}
	return ref.ID, nil
}

// NewEvent builds an event of a business, with data rendered as JSON.
func NewEvent(businessID, typ string, at time.Time, data any) (Event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, err
	}
	return Event{ID: NewID(), BusinessID: businessID, Type: typ, CreatedAt: at.UTC(), Data: raw}, nil
}

// EventQuery selects a page of a business's feed.
type EventQuery struct {
	After int64    // the last sequence number the reader has
	Types []string // only these types; all when empty
	Not   bool     // Types lists the types left out instead
	Limit int
	// Refs leaves the events that name a ledger entry as the reference
	// (EntryID set, Data empty) instead of rendering the entry: for a
	// follower that reads the entries it needs itself.
	Refs bool
}

// record writes an event of the change tx makes.
func record(ctx context.Context, tx Tx, businessID, typ string, data any) error {
	e, err := NewEvent(businessID, typ, tx.Now(), data)
	if err != nil {
		return err
	}
	return tx.InsertEvent(ctx, &e)
}

// appendEntry writes a ledger entry (Tx.Append) with its event: the one
// its plan carries (e.Event, as the group writer writes it), else the
// entry rendered as the reply shows it. Every entry but a reward (typed
// at its start, on either road) passes here once what it did is known,
// so its type code is settled here (typed).
func appendEntry(ctx context.Context, tx Tx, e *Transaction) error {
	e.typed()
	if err := tx.Append(ctx, e); err != nil {
		return err
	}
	if e.Basket != nil {
		if err := tx.InsertBasket(ctx, e); err != nil {
			return err
		}
	}
	if e.Event == nil {
		return record(ctx, tx, e.BusinessID, EventTransactionCreated, NewTransactionJSON(*e))
	}
	ev, err := e.Event(*e)
	if err != nil {
		return err
	}
	return tx.InsertEvent(ctx, &ev)
}

// EntryEvent builds the event of an entry written by Store.AppendAlone,
// at the time of the change: a reference to the entry, which reads
// render as GET /transactions shows it (an entry is never changed).
func EntryEvent(at time.Time) func(Transaction) (Event, error) {
	return func(t Transaction) (Event, error) {
		return Event{ID: NewID(), BusinessID: t.BusinessID, Type: EventTransactionCreated, CreatedAt: at.UTC(), EntryID: t.ID}, nil
	}
}
