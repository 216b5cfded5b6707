package loyalty

import (
	"context"
	"time"
)

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
	// sequence q.After, in sequence order, of q.Types when set, as they
	// are stored: an event that names a ledger entry holds the reference
	// (ReadEvents renders it).
	Events(ctx context.Context, businessID string, q EventQuery) ([]Event, error)
	EntryReader
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

// EntryReader reads the ledger entries events name.
type EntryReader interface {
	// EntriesByID returns the business's ledger entries with the given ids.
	EntriesByID(ctx context.Context, businessID string, ids []int64) ([]Transaction, error)
}

// CursorStore is what a Follower keeps its cursors in (see EventStore).
type CursorStore interface {
	BehindCursors(ctx context.Context, destination, claim string, now time.Time, limit int) ([]string, error)
	ClaimCursor(ctx context.Context, destination, businessID, claim string, now, leaseUntil time.Time) (int64, bool, error)
	ReleaseCursor(ctx context.Context, destination, businessID, claim string) error
}
