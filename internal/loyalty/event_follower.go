package loyalty

import (
	"context"
	"time"
)

// FollowFunc takes a business's events after seq to a destination,
// moving the cursor as it goes with leases that end at until(), and
// returns how many events it took, the sequence the cursor stands at
// now, and false when the lease was lost (another follower took the
// cursor after it ran out).
type FollowFunc func(ctx context.Context, businessID string, seq int64, until func() time.Time) (n int, at int64, held bool, err error)

// Follower follows one destination's cursor in every business's feed
// (the webhooks' fan-out, the NATS publisher, the dashboard's rollup).
// Each round it lists the businesses whose feed is past the cursor and
// hands each to a FollowFunc under a lease. A lease it holds is kept from
// round to round, renewed as the cursor moves or when half of it has
// passed, and released only by Release: a busy business costs no
// claiming and releasing writes per round. Another instance takes over a
// cursor once its lease has run out, as when this one dies.
type Follower struct {
	Store       CursorStore
	Destination string
	Clock       func() time.Time
	// Lease is how long a cursor stays this follower's without a
	// renewal; default 30 seconds.
	Lease time.Duration
	// Limit is how many businesses a round takes; default 100.
	Limit int

	claim string
	held  map[string]heldCursor
}

type heldCursor struct {
	seq   int64
	until time.Time
}

func (f *Follower) now() time.Time {
	if f.Clock != nil {
		return f.Clock()
	}
	return time.Now()
}

func (f *Follower) lease() time.Duration {
	if f.Lease > 0 {
		return f.Lease
	}
	return 30 * time.Second
}

// Round follows each business behind the cursor once and returns how
// many events follow took. It stops at the first error.
func (f *Follower) Round(ctx context.Context, follow FollowFunc) (int, error) {
	if f.held == nil {
		f.held = map[string]heldCursor{}
	}
	f.Claim()
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	ids, err := f.Store.BehindCursors(ctx, f.Destination, f.claim, f.now(), limit)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, id := range ids {
		n, err := f.business(ctx, id, follow)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Follow follows one business now, as a round does when its feed is
// past the cursor: for a reader who needs the destination caught up with
// what it is about to read. It does nothing while another follower holds
// the cursor.
func (f *Follower) Follow(ctx context.Context, businessID string, follow FollowFunc) (int, error) {
	if f.held == nil {
		f.held = map[string]heldCursor{}
	}
	f.Claim()
	return f.business(ctx, businessID, follow)
}

// business follows one business, claiming its cursor first unless this
// follower holds it with more than half of the lease to go.
func (f *Follower) business(ctx context.Context, businessID string, follow FollowFunc) (int, error) {
	now, lease := f.now(), f.lease()
	h, ok := f.held[businessID]
	if !ok || h.until.Sub(now) < lease/2 {
		seq, claimed, err := f.Store.ClaimCursor(ctx, f.Destination, businessID, f.claim, now, now.Add(lease))
		if err != nil || !claimed {
			delete(f.held, businessID)
			return 0, err
		}
		h = heldCursor{seq: seq, until: now.Add(lease)}
	}
	latest := h.until
	until := func() time.Time {
		latest = f.now().Add(lease)
		return latest
	}
	n, at, held, err := follow(ctx, businessID, h.seq, until)
	switch {
	case err != nil || !held:
		// What the cursor holds is not known here: the next round reads
		// it again by claiming.
		delete(f.held, businessID)
	case at != h.seq:
		f.held[businessID] = heldCursor{seq: at, until: latest}
	default:
		f.held[businessID] = h
	}
	return n, err
}

// Release gives up every lease this follower holds, so that another
// instance takes the cursors at once; for when it stops.
func (f *Follower) Release(ctx context.Context) error {
	var first error
	for id := range f.held {
		if err := f.Store.ReleaseCursor(ctx, f.Destination, id, f.claim); err != nil && first == nil {
			first = err
		}
		delete(f.held, id)
	}
	return first
}

// Claim is the claim this follower leases cursors under; a FollowFunc
// that moves the cursor in its own transaction names it.
func (f *Follower) Claim() string {
	if f.claim == "" {
		f.claim = NewID()
	}
	return f.claim
}
