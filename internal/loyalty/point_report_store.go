package loyalty

import (
	"context"
	"time"
)

// ReportStore sums the ledger for the points report.
type ReportStore interface {
	// PointFlows sums the business's entries (of one branch, or all with
	// "") before bounds[0] (opening: only Active and Pending, what the
	// entries left outstanding) and within each [bounds[i], bounds[i+1])
	// (the flows, with Active and Pending the net change of each), each
	// entry counted as codes.Flows counts it.
	PointFlows(ctx context.Context, businessID, branchID string, bounds []time.Time, codes PointFlowCodes) (opening PointFlows, per []PointFlows, err error)
}
