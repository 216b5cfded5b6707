package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
)

// TierDestination names the tier keeper's cursor in event_cursors.
const TierDestination = "tiers"

// TierKeeperStore is what the tier keeper reads and writes.
type TierKeeperStore interface {
	loyalty.CursorStore
	Events(ctx context.Context, businessID string, q loyalty.EventQuery) ([]loyalty.Event, error)
	FeedEnd(ctx context.Context, businessID string) (int64, error)
	AdvanceCursor(ctx context.Context, destination, businessID, claim string, seq int64, leaseUntil time.Time) (bool, error)
	// FollowTx runs fn in the transaction that moves a claimed cursor
	// from after to to; false, with nothing done, when the cursor is no
	// longer the claim's at after.
	FollowTx(ctx context.Context, destination, businessID, claim string, after, to int64, leaseUntil time.Time,
		fn func(loyalty.Tx) error) (bool, error)
	// CursorAt is the sequence a destination's cursor of a business
	// stands at, 0 for none, whoever holds it.
	CursorAt(ctx context.Context, destination, businessID string) (int64, error)
	// WithTx runs fn in a transaction.
	WithTx(ctx context.Context, fn func(loyalty.Tx) error) error
	Business(ctx context.Context, id string) (loyalty.Business, error)
	Tiers(ctx context.Context, businessID string) ([]loyalty.Tier, error)
	// EntryCustomers returns the customer of each of the business's
	// ledger entries ids, by entry id.
	EntryCustomers(ctx context.Context, businessID string, ids []int64) (map[int64]string, error)
}

// TierKeeper announces the tier levels transactions move: it follows each
// business's event log and, for the customers of a page's transaction
// events, writes a tier.changed event where the level held now differs
// from the one last announced (loyalty.KeepTiers), in the transaction
// that moves its cursor past the page: each change is announced once,
// even when a keeper dies or two race. A reward is never slowed by it:
// the change is announced within seconds of the entry's commit.
//
// While a period end of the business's program is due and not done, it
// waits for the points scheduler, which announces what the period's end
// changes (loyalty.RollTiers).
type TierKeeper struct {
	Store  TierKeeperStore
	Logger *slog.Logger
	Clock  func() time.Time
	// Lease is how long a claimed cursor stays this keeper's without an
	// advance; default 30 seconds.
	Lease time.Duration
	// Every is how often it looks for events; default 2s.
	Every time.Duration
	// Page is how many events one transaction takes; default 500.
	Page int

	follower *loyalty.Follower
	// turn is held by the round or catch-up under way: they share the
	// follower and its leases.
	turn     chan struct{}
	turnOnce sync.Once
}

// take waits up to wait for the keeper's turn (false when it did not
// come, or ctx ended); the caller gives it back with k.give.
func (k *TierKeeper) take(ctx context.Context, wait time.Duration) bool {
	k.turnOnce.Do(func() { k.turn = make(chan struct{}, 1) })
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case k.turn <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (k *TierKeeper) give() { <-k.turn }

// Start runs the keeper in the background until stop is called.
func (k *TierKeeper) Start(ctx context.Context) (stop func()) { return worker.Start(ctx, k.Run) }

// Run keeps until ctx is done, then gives up its cursors' leases.
func (k *TierKeeper) Run(ctx context.Context) {
	follow(ctx, orDefault(k.Every, 2*time.Second), k.followed(), k.Drain, k.Logger, "keeping the tiers")
}

// Drain takes the events of every business whose tier cursor is behind,
// and returns how many it took.
func (k *TierKeeper) Drain(ctx context.Context) (int, error) {
	if !k.take(ctx, time.Hour) {
		return 0, ctx.Err()
	}
	defer k.give()
	return k.followed().Round(ctx, k.keep)
}

// CatchUpWait is how long CatchUp waits for a round under way before it
// announces without the cursor.
const CatchUpWait = 50 * time.Millisecond

// CatchUp announces the levels a business's events moved up to the end
// of its feed now, for a reader of the feed (loyalty.EventService.
// KeepTiers): a transaction's tier.changed is then in the feed that shows
// the transaction. It takes the business's cursor forward when it can (no
// round of this keeper under way, no other keeper holding the cursor);
// otherwise it announces what the events past the cursor moved without
// moving it (look), which the cursor's holder then finds announced. It
// returns how many events it took.
func (k *TierKeeper) CatchUp(ctx context.Context, businessID string) (int, error) {
	n := 0
	if k.take(ctx, CatchUpWait) {
		var err error
		n, err = k.followed().Follow(ctx, businessID, k.keep)
		k.give()
		if err != nil {
			return n, err
		}
	}
	at, err := k.Store.CursorAt(ctx, TierDestination, businessID)
	if err != nil {
		return n, err
	}
	m, err := k.look(ctx, businessID, at)
	return n + m, err
}

func (k *TierKeeper) followed() *loyalty.Follower {
	if k.follower == nil {
		k.follower = &loyalty.Follower{Store: k.Store, Destination: TierDestination, Clock: k.Clock, Lease: k.Lease}
	}
	return k.follower
}

func (k *TierKeeper) now() time.Time {
	if k.Clock != nil {
		return k.Clock()
	}
	return time.Now()
}

// keep takes a business's events after seq, a page per transaction
// that moves the cursor.
func (k *TierKeeper) keep(ctx context.Context, businessID string, seq int64, until func() time.Time) (int, int64, bool, error) {
	claim := k.followed().Claim()
	return k.walk(ctx, businessID, seq, func(to int64) (bool, error) {
		return k.Store.AdvanceCursor(ctx, TierDestination, businessID, claim, to, until())
	}, func(after, to int64, fn func(loyalty.Tx) error) (bool, error) {
		return k.Store.FollowTx(ctx, TierDestination, businessID, claim, after, to, until(), fn)
	})
}

// look announces the levels a business's events after seq moved, leaving
// the cursor where it is: for a reader while another keeper holds it.
// KeepTiers decides under the program's lock from the level last
// announced, so the holder, taking the same events after, finds their
// changes announced already and announces none twice.
func (k *TierKeeper) look(ctx context.Context, businessID string, seq int64) (int, error) {
	n, _, _, err := k.walk(ctx, businessID, seq, func(int64) (bool, error) { return true, nil },
		func(_, _ int64, fn func(loyalty.Tx) error) (bool, error) { return true, k.Store.WithTx(ctx, fn) })
	return n, err
}

// walk takes a business's events after seq, a page per transaction run
// by in (false: the cursor was lost), and where the business has no tier
// program skips to the end of its feed by skip.
func (k *TierKeeper) walk(ctx context.Context, businessID string, seq int64, skip func(to int64) (bool, error),
	in func(after, to int64, fn func(loyalty.Tx) error) (bool, error)) (int, int64, bool, error) {
	// The end is read before the program: a program enabled after that
	// read announces from its first change after.
	end, err := k.Store.FeedEnd(ctx, businessID)
	if err != nil || end <= seq {
		return 0, seq, true, err
	}
	tiers, err := k.Store.Tiers(ctx, businessID)
	if err != nil {
		return 0, seq, true, err
	}
	t, ok := loyalty.EnabledTier(tiers)
	if !ok {
		// No program, no level to announce: skip to the end of the feed.
		held, err := skip(end)
		return 0, end, held, err
	}
	b, err := k.Store.Business(ctx, businessID)
	if err != nil {
		return 0, seq, true, err
	}
	total, size := 0, orDefault(k.Page, 500)
	for ctx.Err() == nil {
		// An everyday reward's event names its entry (Refs): the keeper
		// needs its customer, not the entry rendered.
		page, err := k.Store.Events(ctx, businessID, loyalty.EventQuery{After: seq, Limit: size, Refs: true})
		if err != nil || len(page) == 0 {
			return total, seq, true, err
		}
		movers, err := k.movers(ctx, businessID, page)
		if err != nil {
			return total, seq, true, err
		}
		now := k.now().Add(b.ClockOffset)
		to := page[len(page)-1].Seq
		held, err := in(seq, to, func(tx loyalty.Tx) error {
			_, err := loyalty.KeepTiers(ctx, tx, businessID, t.ID, now, movers)
			return err
		})
		if errors.Is(err, loyalty.ErrTierRollPending) {
			// The scheduler ends the period first; this page waits.
			return total, seq, true, nil
		}
		if err != nil || !held {
			return total, seq, held, err
		}
		total, seq = total+len(page), to
		if len(page) < size {
			return total, seq, true, nil
		}
	}
	return total, seq, true, ctx.Err()
}

// movers lists, once each and in order of their first event, the
// customers of a page's transaction events (the ones whose tier totals
// moved), each with the latest of its entries in the page as the events
// name them, and the last the page shows written. An event that
// names its entry (loyalty.EventQuery.Refs) has the entry's customer.
func (k *TierKeeper) movers(ctx context.Context, businessID string, page []loyalty.Event) ([]loyalty.TierMove, error) {
	var entries []int64
	for _, e := range page {
		if moves(e) && e.Unrendered() {
			entries = append(entries, e.EntryID)
		}
	}
	var of map[int64]string
	if len(entries) > 0 {
		var err error
		if of, err = k.Store.EntryCustomers(ctx, businessID, entries); err != nil {
			return nil, err
		}
	}
	var out []loyalty.TierMove
	at := map[string]int{} // index in out of each customer
	for _, e := range page {
		if !moves(e) {
			continue
		}
		var data struct {
			ID       int64 `json:"id"`
			Customer struct {
				ID string `json:"id"`
			} `json:"customer"`
		}
		if e.Unrendered() {
			if data.ID, data.Customer.ID = e.EntryID, of[e.EntryID]; data.Customer.ID == "" {
				return nil, fmt.Errorf("events: event %s names entry %d, which is not in the ledger", e.ID, e.EntryID)
			}
		} else if err := json.Unmarshal(e.Data, &data); err != nil {
			return nil, err
		}
		id := data.Customer.ID
		if id == "" {
			continue
		}
		i, ok := at[id]
		if !ok {
			i, at[id] = len(out), len(out)
			out = append(out, loyalty.TierMove{CustomerID: id})
		}
		out[i].EntryID = data.ID
		if e.Type == loyalty.EventTransactionCreated {
			out[i].Written, out[i].WrittenAt = data.ID, e.CreatedAt
		}
	}
	return out, nil
}

// moves reports whether an event is of a transaction, which moves its
// customer's tier totals.
func moves(e loyalty.Event) bool {
	return e.Type == loyalty.EventTransactionCreated || e.Type == loyalty.EventTransactionCancelled
}
