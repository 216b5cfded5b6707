package loyalty

import (
	"context"
	"time"
)

// DashboardReader reads, inside the folding transaction, what an event's
// data does not say.
type DashboardReader interface {
	// Entry returns a ledger entry of the business by id.
	Entry(ctx context.Context, id int64) (Transaction, error)
}

// DashboardStore keeps the dashboard's rollups.
type DashboardStore interface {
	// SequenceEvents numbers the business's committed events (EventStore).
	SequenceEvents(ctx context.Context, businessID string) (int, error)
	// FoldDashboard applies to the rollups, in one transaction, what fold
	// returns for each event of page (the business's events after
	// sequence after, in order), and moves the dashboard cursor from
	// after to the page's last sequence while claim holds it. It applies
	// nothing and reports false when the claim no longer holds the
	// cursor or the cursor is no longer at after.
	FoldDashboard(ctx context.Context, businessID, claim string, after int64, page []Event, leaseUntil time.Time, fold FoldFunc) (bool, error)
	// BackfillDashboards folds into the rollups, for the businesses whose
	// history predates the event log, what no event stands for, once,
	// and returns how many businesses it did.
	BackfillDashboards(ctx context.Context, fold FoldFunc) (int, error)
	// DashboardSnapshot reads, in one consistent snapshot, the rollups of
	// q and the events past the dashboard cursor, folded with fold.
	DashboardSnapshot(ctx context.Context, businessID string, q DashboardQuery, fold FoldFunc) (DashboardData, error)
}
