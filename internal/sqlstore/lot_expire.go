package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// DueExpiries locks the customers of up to limit active lots due to
// expire at at (of one business, or all with ""), in the order of their
// keys so that two such batches never deadlock, and returns those lots.
// Holding their rows, no other change moves the lots until the
// transaction ends. Every statement reads through an index whatever the
// planner's statistics say: lots by the expiry index then by id, customers
// by their key (one statement per business), never a join the planner
// could turn into a scan.
func (t *tx) DueExpiries(ctx context.Context, businessID string, at time.Time, limit int) ([]loyalty.PointLot, error) {
	query := `SELECT id, business_id, customer_id FROM point_lots WHERE state = 'active' AND expires_at <= $1
		ORDER BY expires_at LIMIT $2`
	args := []any{at.UTC(), limit}
	if businessID != "" {
		query = `SELECT id, business_id, customer_id FROM point_lots WHERE business_id = $3 AND state = 'active' AND expires_at <= $1
			LIMIT $2`
		args = append(args, businessID)
	}
	rows, err := t.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbError(err)
	}
	var ids []int64
	customers := map[string][]string{} // by business
	seen := map[loyalty.CustomerKey]bool{}
	for rows.Next() {
		var id int64
		var k loyalty.CustomerKey
		if err := rows.Scan(&id, &k.BusinessID, &k.CustomerID); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		ids = append(ids, id)
		if !seen[k] {
			seen[k] = true
			customers[k.BusinessID] = append(customers[k.BusinessID], k.CustomerID)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return nil, dbError(err)
	}
	if t.pg {
		businesses := make([]string, 0, len(customers))
		for b := range customers {
			businesses = append(businesses, b)
		}
		slices.Sort(businesses)
		for _, b := range businesses {
			if _, err := t.ExecContext(ctx, `SELECT 1 FROM customers WHERE business_id = $1 AND user_id = ANY($2::text[])
				ORDER BY user_id FOR UPDATE OF customers`, b, customers[b]); err != nil {
				return nil, dbError(err)
			}
		}
	}
	// Read again under the locks: what another change did meanwhile counts.
	marks := make([]string, len(ids))
	idArgs := make([]any, len(ids))
	for i, id := range ids {
		marks[i], idArgs[i] = fmt.Sprintf("$%d", i+2), id
	}
	rows, err = t.QueryContext(ctx, `SELECT `+lotColumns+`, `+lotBranch+` FROM point_lots l
		WHERE l.id IN (`+strings.Join(marks, ", ")+`) AND l.state = 'active' AND l.expires_at <= $1 ORDER BY l.id`,
		append([]any{at.UTC()}, idArgs...)...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.PointLot
	for rows.Next() {
		var branch string
		l, err := scanLot(rows, &branch)
		if err != nil {
			return nil, dbError(err)
		}
		l.BranchID = branch
		out = append(out, l)
	}
	return out, dbError(rows.Err())
}

// lotBranch is the branch of a lot's earning entry (alias l), ” for none:
// a subquery on the ledger's key, never a join.
const lotBranch = `COALESCE((SELECT e.branch_id FROM transactions e WHERE e.id = l.entry_id), '')`

// ExpireLots writes the expiries of lots DueExpiries returned in this
// transaction, as the domain decided them (loyalty.SettleLotAt), and moves
// the lots and the balances with them: on PostgreSQL three statements for
// the whole batch, on SQLite (one writer, no round trips) lot by lot.
func (t *tx) ExpireLots(ctx context.Context, expiries []loyalty.LotSettlement) error {
	if !t.pg {
		for _, x := range expiries {
			if ok, err := t.SettleLot(ctx, x); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("sqlstore: lot %d changed under its customer's lock", x.Before.ID)
			}
		}
		return nil
	}
	n := len(expiries)
	ids, points, expired, remaining := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	states, was := make([]string, n), make([]string, n)
	text := make([][]string, 5) // business, customer, branch, intent, name
	for k := range text {
		text[k] = make([]string, n)
	}
	codes, at := make([]int32, n), make([]time.Time, n)
	for i, x := range expiries {
		e := x.Entry
		ids[i], points[i], expired[i] = x.Before.ID, e.Points, e.Expired
		states[i], was[i], remaining[i] = x.After.State, x.Before.State, x.After.Remaining
		text[0][i], text[1][i], text[2][i], text[3][i], text[4][i] = e.BusinessID, e.CustomerID, e.BranchID, e.Intent, e.Name
		codes[i], at[i] = int32(e.TypeCode), e.CreatedAt.UTC()
	}
	res, err := t.ExecContext(ctx, `UPDATE point_lots l SET state = x.state, remaining = x.remaining
		FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[]) AS x(id, state, remaining, was)
		WHERE l.id = ANY($1::bigint[]) AND l.id = x.id AND l.state = x.was`, ids, states, remaining, was)
	if err != nil {
		return dbError(err)
	}
	if got, err := res.RowsAffected(); err != nil || got != int64(n) {
		if err == nil {
			err = fmt.Errorf("sqlstore: %d of %d lots changed under their customers' locks", int64(n)-got, n)
		}
		return err
	}
	// Per business, the customers by their key (an index scan whatever
	// the statistics), the sums joined to those few rows.
	byBusiness := map[string][]int{}
	for i := range expiries {
		byBusiness[text[0][i]] = append(byBusiness[text[0][i]], i)
	}
	for b, idx := range byBusiness {
		users, pts, exp := make([]string, len(idx)), make([]int64, len(idx)), make([]int64, len(idx))
		for j, i := range idx {
			users[j], pts[j], exp[j] = text[1][i], points[i], expired[i]
		}
		if _, err := t.ExecContext(ctx, `UPDATE customers cu SET points = cu.points + s.p, expired_points = cu.expired_points + s.x,
			tx_count = cu.tx_count + s.n
			FROM (SELECT c, SUM(p) AS p, SUM(x) AS x, COUNT(*) AS n FROM unnest($2::text[], $3::bigint[], $4::bigint[]) AS v(c, p, x)
				GROUP BY c) s
			WHERE cu.business_id = $1 AND cu.user_id = ANY($2::text[]) AND cu.user_id = s.c`, b, users, pts, exp); err != nil {
			return dbError(err)
		}
	}
	rows, err := t.QueryContext(ctx, `INSERT INTO transactions (business_id, customer_id, branch_id, intent, type_code, name, points,
		created_at, lot_id)
		SELECT x.b, x.c, COALESCE(NULLIF(x.br, ''), (SELECT m.id FROM branches m WHERE m.business_id = x.b AND m.is_main)),
			x.intent, x.code, x.name, x.p, x.at, x.lot
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::bigint[], $8::timestamptz[],
			$9::bigint[]) AS x(b, c, br, intent, code, name, p, at, lot)
		RETURNING id, lot_id`, text[0], text[1], text[2], text[3], codes, text[4], points, at, ids)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	byLot := map[int64]int{}
	for i, x := range expiries {
		byLot[x.Before.ID] = i
	}
	for rows.Next() {
		var id, lot int64
		if err := rows.Scan(&id, &lot); err != nil {
			return dbError(err)
		}
		expiries[byLot[lot]].Entry.ID = id
	}
	return dbError(rows.Err())
}
