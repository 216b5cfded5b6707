package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// claims counts the cursor claims made through a store.
type claims struct {
	loyalty.EventStore
	n int
}

func (c *claims) ClaimCursor(ctx context.Context, destination, businessID, claim string, now, leaseUntil time.Time) (int64, bool, error) {
	c.n++
	return c.EventStore.ClaimCursor(ctx, destination, businessID, claim, now, leaseUntil)
}

// TestFollowerKeepsItsLease follows a business's feed round after round:
// the lease is claimed once and kept (not claimed and released each
// round), renewed once half of it has passed, not taken by another
// follower while it holds, taken over once it ran out, and given up by
// Release.
func TestFollowerKeepsItsLease(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) { keepsItsLease(t, testenv.Open(t, engine)) })
	}
}

func keepsItsLease(t *testing.T, db *sqlstore.DB) {
	b := business(t, db)
	seq := &events.Sequencer{Store: db}
	more := func(n int) {
		write(t, db, b, n)
		if _, err := seq.Sequence(ctx); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	clock := func() time.Time { return now }
	store := &claims{EventStore: db}
	taken := map[string]int64{} // follower → the last sequence it took
	follow := func(name string, f *loyalty.Follower) loyalty.FollowFunc {
		return func(ctx context.Context, businessID string, from int64, until func() time.Time) (int, int64, bool, error) {
			page, err := db.Events(ctx, businessID, loyalty.EventQuery{After: from, Limit: 100})
			if err != nil || len(page) == 0 {
				return 0, from, true, err
			}
			at := page[len(page)-1].Seq
			held, err := db.AdvanceCursor(ctx, f.Destination, businessID, f.Claim(), at, until())
			if held {
				taken[name] = at
			}
			return len(page), at, held, err
		}
	}
	one := &loyalty.Follower{Store: store, Destination: "test", Clock: clock, Lease: time.Minute}
	two := &loyalty.Follower{Store: store, Destination: "test", Clock: clock, Lease: time.Minute}
	round := func(name string, f *loyalty.Follower, want int) {
		t.Helper()
		if n, err := f.Round(ctx, follow(name, f)); err != nil || n != want {
			t.Fatalf("%s's round: %d events, %v; want %d", name, n, err, want)
		}
	}

	more(3)
	round("one", one, 3)
	more(2)
	round("one", one, 2)
	round("two", two, 0) // the lease holds: two does not even try
	if store.n != 1 {
		t.Fatalf("%d claims; want one", store.n)
	}
	now = now.Add(20 * time.Second) // the advance renewed the lease to 60 s
	more(1)
	round("one", one, 1)
	if store.n != 1 {
		t.Fatalf("%d claims after a round within the lease's first half", store.n)
	}
	now = now.Add(40 * time.Second) // more than half of it gone
	more(1)
	round("one", one, 1)
	if store.n != 2 || taken["one"] != 7 {
		t.Fatalf("%d claims, one took up to %d; want a renewal and 7", store.n, taken["one"])
	}
	now = now.Add(2 * time.Minute) // one stopped following: its lease ran out
	more(2)
	round("two", two, 2)
	if taken["two"] != 9 {
		t.Fatalf("two took up to %d; want 9", taken["two"])
	}
	more(1)
	round("one", one, 0) // lost: it sees the cursor leased
	round("two", two, 1)
	if err := two.Release(ctx); err != nil {
		t.Fatal(err)
	}
	more(1)
	round("one", one, 1) // free again
	if taken["one"] != 11 {
		t.Fatalf("one took up to %d; want 11", taken["one"])
	}
}
