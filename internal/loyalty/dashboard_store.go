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
	// DashboardInsights reads from the ledger, in one snapshot, the
	// rankings (up to q.Limit each) and the member activity of q (see
	// Insights for the rules).
	DashboardInsights(ctx context.Context, businessID string, q InsightQuery) (Insights, error)
	// MemberActivity reads the member activity of q alone.
	MemberActivity(ctx context.Context, businessID string, q InsightQuery) (MemberActivity, error)
	// Tiers lists the tier programs of a business, with their levels.
	Tiers(ctx context.Context, businessID string) ([]Tier, error)
	// TierMembers counts the live customers the tier keeper holds a row
	// for in a program, by the level last announced (0 for none).
	TierMembers(ctx context.Context, businessID string, tierID int64) (map[int64]int64, error)
}
