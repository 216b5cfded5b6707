package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// RollupStore is what the dashboard's follower reads and writes.
type RollupStore interface {
	loyalty.EventStore
	loyalty.DashboardStore
}

// Rollup folds each business's events into the dashboard's daily
// aggregates (loyalty.FoldEvent), following the feed with the cursor of
// destination loyalty.DashboardDestination under a lease, as NATS does.
// Unlike a delivery, a page is applied and the cursor advanced in the
// same database transaction (DashboardStore.FoldDashboard), so an event
// is folded exactly once even when a worker dies or two race.
type Rollup struct {
	Store  RollupStore
	Logger *slog.Logger
	Clock  func() time.Time
	// Lease is how long a claimed cursor stays this worker's without an
	// advance; default 30 seconds.
	Lease time.Duration
	// Every is how often it looks for events to fold; default 500ms.
	Every time.Duration
	// Page is how many events one transaction folds; default 500.
	Page int

	claim string
}

// Start runs the follower in the background until stop is called.
func (r *Rollup) Start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// Run folds until ctx is done.
func (r *Rollup) Run(ctx context.Context) {
	tick := time.NewTicker(orDefault(r.Every, 500*time.Millisecond))
	defer tick.Stop()
	for {
		if _, err := r.Drain(ctx); err != nil && ctx.Err() == nil {
			r.logger().ErrorContext(ctx, "events: folding the dashboard failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Drain folds the numbered events of every business whose dashboard
// cursor is behind, and returns how many it folded.
func (r *Rollup) Drain(ctx context.Context) (int, error) {
	if r.claim == "" {
		r.claim = loyalty.NewID()
	}
	ids, err := r.Store.BehindCursors(ctx, loyalty.DashboardDestination, r.now(), 100)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, id := range ids {
		n, err := r.fold(ctx, id)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// fold claims a business's cursor and folds its events after it, a page
// per transaction.
func (r *Rollup) fold(ctx context.Context, businessID string) (int, error) {
	lease := orDefault(r.Lease, 30*time.Second)
	now := r.now()
	seq, ok, err := r.Store.ClaimCursor(ctx, loyalty.DashboardDestination, businessID, r.claim, now, now.Add(lease))
	if err != nil || !ok {
		return 0, err
	}
	defer func() {
		if err := r.Store.ReleaseCursor(context.WithoutCancel(ctx), loyalty.DashboardDestination, businessID, r.claim); err != nil {
			r.logger().ErrorContext(ctx, "events: releasing the dashboard cursor failed", "business", businessID, "err", err)
		}
	}()
	total, fold := 0, loyalty.Fold()
	for {
		page, err := r.Store.Events(ctx, businessID, loyalty.EventQuery{After: seq, Limit: orDefault(r.Page, 500)})
		if err != nil || len(page) == 0 {
			return total, err
		}
		held, err := r.Store.FoldDashboard(ctx, businessID, r.claim, seq, page, r.now().Add(lease), fold)
		if err != nil || !held {
			// Lost to another worker after the lease ran out: it goes on.
			return total, err
		}
		total, seq = total+len(page), page[len(page)-1].Seq
	}
}

func (r *Rollup) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

func (r *Rollup) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}
