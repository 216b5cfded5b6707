package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
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
//
// The dashboard folds the events past the cursor when it is read, so
// the rollup may run behind: it folds every few seconds, in larger
// transactions, instead of following each reward.
type Rollup struct {
	Store  RollupStore
	Logger *slog.Logger
	Clock  func() time.Time
	// Lease is how long a claimed cursor stays this worker's without an
	// advance; default 30 seconds.
	Lease time.Duration
	// Every is how often it looks for events to fold; default 2s.
	Every time.Duration
	// Page is how many events one transaction folds; default 500.
	Page int

	follower *loyalty.Follower
}

// Start runs the follower in the background until stop is called.
func (r *Rollup) Start(ctx context.Context) (stop func()) { return worker.Start(ctx, r.Run) }

// Run folds until ctx is done, then gives up its cursors' leases.
func (r *Rollup) Run(ctx context.Context) {
	follow(ctx, orDefault(r.Every, 2*time.Second), r.followed(), r.Drain, r.Logger, "folding the dashboard")
}

// Drain folds the history of the businesses that predate the event log
// (once; see DashboardStore.BackfillDashboards), then the numbered events
// of every business whose dashboard cursor is behind, and returns how
// many events it folded.
func (r *Rollup) Drain(ctx context.Context) (int, error) {
	if _, err := r.Store.BackfillDashboards(ctx, loyalty.Fold()); err != nil {
		return 0, err
	}
	return r.followed().Round(ctx, r.fold)
}

func (r *Rollup) followed() *loyalty.Follower {
	if r.follower == nil {
		r.follower = &loyalty.Follower{Store: r.Store, Destination: loyalty.DashboardDestination, Clock: r.Clock, Lease: r.Lease}
	}
	return r.follower
}

// fold folds a business's events after seq, a page per transaction.
func (r *Rollup) fold(ctx context.Context, businessID string, seq int64, until func() time.Time) (int, int64, bool, error) {
	total, fold, size := 0, loyalty.Fold(), orDefault(r.Page, 500)
	for {
		page, err := r.Store.Events(ctx, businessID, loyalty.EventQuery{After: seq, Limit: size, Refs: true})
		if err != nil || len(page) == 0 {
			return total, seq, true, err
		}
		held, err := r.Store.FoldDashboard(ctx, businessID, r.followed().Claim(), seq, page, until(), fold)
		if err != nil || !held {
			// Lost to another worker after the lease ran out: it goes on.
			return total, seq, held, err
		}
		total, seq = total+len(page), page[len(page)-1].Seq
		if len(page) < size {
			return total, seq, true, nil
		}
	}
}
