package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// PointFlows sums a business's ledger for the points report: before
// bounds[0], and within each [bounds[i], bounds[i+1]), in one pass over
// the entries before the last bound, each entry counted in the flows of
// codes as loyalty.PointFlowCodes.Flows counts it (TestPointFlowsSumByTheGivenCodes).
func (d *DB) PointFlows(ctx context.Context, businessID, branchID string, bounds []time.Time, codes loyalty.PointFlowCodes) (loyalty.PointFlows, []loyalty.PointFlows, error) {
	args := []any{businessID}
	var bucket strings.Builder
	bucket.WriteString("CASE")
	for i, b := range bounds[:len(bounds)-1] {
		args = append(args, b.UTC())
		fmt.Fprintf(&bucket, " WHEN t.created_at < $%d THEN %d", len(args), i-1)
	}
	fmt.Fprintf(&bucket, " ELSE %d END", len(bounds)-2)
	args = append(args, bounds[len(bounds)-1].UTC())
	where := fmt.Sprintf(`t.business_id = $1 AND t.created_at < $%d`, len(args))
	if branchID != "" {
		args = append(args, branchID)
		where += fmt.Sprintf(` AND t.branch_id = $%d`, len(args))
	}
	moves, args := codeIn("t.type_code", args, codes.Moves)
	expired, args := codeIn("t.type_code", args, codes.Expired)
	activated, args := codeIn("t.type_code", args, codes.Activated)
	reversals, args := codeIn("t.type_code", args, codes.Reversals)
	rows, err := d.db.QueryContext(ctx, `SELECT k, SUM(issued), SUM(spent), SUM(reversed), SUM(expired), SUM(activated), SUM(active),
		SUM(pending)
		FROM (SELECT `+bucket.String()+` AS k,
			CASE WHEN NOT (`+moves+`) AND NOT (`+reversals+`) AND t.points > 0 THEN t.points ELSE 0 END AS issued,
			CASE WHEN NOT (`+moves+`) AND NOT (`+reversals+`) AND t.points < 0 THEN -t.points ELSE 0 END AS spent,
			CASE WHEN `+reversals+` THEN -t.points ELSE 0 END AS reversed,
			CASE WHEN `+expired+` THEN -t.points ELSE 0 END AS expired,
			CASE WHEN `+activated+` THEN -t.pending_points ELSE 0 END AS activated,
			t.points - t.pending_points AS active, t.pending_points AS pending
			FROM transactions t WHERE `+where+`) e GROUP BY k`, args...)
	if err != nil {
		return loyalty.PointFlows{}, nil, dbError(err)
	}
	defer rows.Close()
	var opening loyalty.PointFlows
	per := make([]loyalty.PointFlows, len(bounds)-1)
	for rows.Next() {
		var k int
		var f loyalty.PointFlows
		if err := rows.Scan(&k, &f.Issued, &f.Spent, &f.Reversed, &f.Expired, &f.Activated, &f.Active, &f.Pending); err != nil {
			return opening, nil, dbError(err)
		}
		if k < 0 {
			opening = loyalty.PointFlows{Active: f.Active, Pending: f.Pending}
		} else {
			per[k] = f
		}
	}
	return opening, per, dbError(rows.Err())
}

// codeIn returns the SQL condition that col is one of codes, their
// placeholders appended to args; FALSE for no codes.
func codeIn(col string, args []any, codes []int) (string, []any) {
	if len(codes) == 0 {
		return "FALSE", args
	}
	list, args := placeholders(args, codes)
	return col + " IN (" + list + ")", args
}
