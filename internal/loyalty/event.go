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
	EventCustomerEnabled      = "customer.enabled"
	EventCustomerDisabled     = "customer.disabled"
	EventTransactionCreated   = "transaction.created"
	EventTransactionCancelled = "transaction.cancelled"
	EventCouponIssued         = "coupon.issued"
	EventCouponClaimed        = "coupon.claimed"
	EventReferralPaid         = "referral.paid"
	EventUserCreated          = "user.created"
	EventUserVerified         = "user.verified"
	EventPointsActivated      = "points.activated" // a pending lot became usable (data: the activation entry)
	EventPointsExpired        = "points.expired"   // what remained of a lot expired (data: the expiry entry)
	EventTierChanged          = "tier.changed"     // a customer's tier level went up or down (data: tierChangeJSON)
)

// EventTypes lists every event type, for the type filter of GET /events.
var EventTypes = []string{EventCustomerCreated, EventCustomerUpdated, EventCustomerDeleted, EventCustomerEnabled,
	EventCustomerDisabled, EventTransactionCreated, EventTransactionCancelled, EventCouponIssued, EventCouponClaimed,
	EventReferralPaid, EventUserCreated, EventUserVerified, EventPointsActivated, EventPointsExpired, EventTierChanged}

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

// EventTx writes events inside a change's transaction.
type EventTx interface {
	// InsertEvent writes an event, not numbered yet; it becomes readable
	// once the transaction committed and a sequencer numbered it.
	InsertEvent(ctx context.Context, e *Event) error
}

// EventStore reads and numbers the event log. A delivery worker (webhooks,
// NATS) follows a business's feed with it: it claims the business's
// cursor for its destination, reads the numbered events after the
// cursor's sequence, delivers them and advances the cursor while its
// claim holds.
type EventStore interface {
	// SequenceEvents numbers the committed events of a business that are
	// not numbered yet, in id order, after the business's last number,
	// and returns how many it numbered.
	SequenceEvents(ctx context.Context, businessID string) (int, error)
	// UnsequencedBusinesses lists up to limit businesses with events to number.
	UnsequencedBusinesses(ctx context.Context, limit int) ([]string, error)
	// Events returns up to q.Limit numbered events of a business after
	// sequence q.After, in sequence order, of q.Types when set.
	Events(ctx context.Context, businessID string, q EventQuery) ([]Event, error)
	// BehindCursors lists up to limit businesses whose numbered events go
	// beyond destination's cursor and whose cursor is free at now or
	// leased by claim.
	BehindCursors(ctx context.Context, destination, claim string, now time.Time, limit int) ([]string, error)
	// ClaimCursor leases destination's cursor of a business until
	// leaseUntil for claim (created at 0 on first use) when no other
	// claim holds it at now — claim's own lease is renewed — and returns
	// its sequence.
	ClaimCursor(ctx context.Context, destination, businessID, claim string, now, leaseUntil time.Time) (int64, bool, error)
	// AdvanceCursor moves a claimed cursor to seq; it reports false when
	// claim no longer holds it (the lease ran out and another took it).
	AdvanceCursor(ctx context.Context, destination, businessID, claim string, seq int64, leaseUntil time.Time) (bool, error)
	// ReleaseCursor ends claim's lease on a cursor.
	ReleaseCursor(ctx context.Context, destination, businessID, claim string) error
	// PruneEvents removes the numbered events created before t.
	PruneEvents(ctx context.Context, before time.Time) (int, error)
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

// appendEntry writes a ledger entry (Tx.Append) with its event. Every
// entry but the lone reward (typed at its start) passes here once what it
// did is known, so its type code is settled here (typed).
func appendEntry(ctx context.Context, tx Tx, e *Transaction) error {
	e.typed()
	if err := tx.Append(ctx, e); err != nil {
		return err
	}
	return record(ctx, tx, e.BusinessID, EventTransactionCreated, NewTransactionJSON(*e))
}

// EntryEvent builds the event of an entry written by Store.AppendAlone,
// at the time of the change: a reference to the entry, which reads
// render as GET /transactions shows it (an entry is never changed).
func EntryEvent(at time.Time) func(Transaction) (Event, error) {
	return func(t Transaction) (Event, error) {
		return Event{ID: NewID(), BusinessID: t.BusinessID, Type: EventTransactionCreated, CreatedAt: at.UTC(), EntryID: t.ID}, nil
	}
}
