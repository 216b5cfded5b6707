package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The dashboard's rollups (migration 00021): the follower folds a page of
// events and moves its cursor in one transaction; the dashboard reads the
// rollups and the events past the cursor in one snapshot.

// errCursorMoved ends a fold whose claim or starting point no longer holds.
var errCursorMoved = errors.New("dashboard cursor moved")

// entryReader reads ledger entries of a business inside a transaction,
// the columns a fold reads (foldColumns); those of a page of events are
// read ahead in one query (prefetch).
type entryReader struct {
	q          querier
	dialect    string
	businessID string
	read       map[int64]loyalty.Transaction
}

// Entry returns a ledger entry of the business by id.
func (r entryReader) Entry(ctx context.Context, id int64) (loyalty.Transaction, error) {
	if e, ok := r.read[id]; ok {
		return e, nil
	}
	// By key alone, as prefetch reads.
	e, err := scanFoldEntry(r.q.QueryRowContext(ctx, `SELECT `+foldColumns+` FROM transactions t
		WHERE t.id = $1`, id))
	if err == sql.ErrNoRows || (err == nil && e.BusinessID != r.businessID) {
		return e, loyalty.Errorf(loyalty.ENotFound, "Transaction not found.")
	}
	return e, dbError(err)
}

// foldColumns are the columns of an entry that loyalty.FoldEvent reads
// (its figures, day, branch and visitor) and the business it checks; the
// follower reads an entry for every reward, and the whole row is three
// times as many columns.
const foldColumns = `t.id, t.business_id, t.customer_id, COALESCE(t.branch_id, ''), t.intent, t.amount, t.points,
	t.visits, COALESCE(t.reverses_id, 0), t.created_at`

// scanFoldEntry scans foldColumns.
func scanFoldEntry(row scanner) (loyalty.Transaction, error) {
	var e loyalty.Transaction
	err := row.Scan(&e.ID, &e.BusinessID, &e.CustomerID, &e.BranchID, &e.Intent, &e.Amount, &e.Points, &e.Visits,
		&e.ReversesID, &e.CreatedAt)
	return e, err
}

// prefetch reads, in one query by key, the entries of the page's
// transaction.created events (a query per event was most of the
// follower's cost); an entry not read here is read by Entry.
func (r *entryReader) prefetch(ctx context.Context, events []loyalty.Event) error {
	var ids []int64
	for _, e := range events {
		if e.Type != loyalty.EventTransactionCreated {
			continue
		}
		id, err := e.Entry()
		if err != nil {
			continue // FoldEvent reports it
		}
		ids = append(ids, id)
	}
	r.read = make(map[int64]loyalty.Transaction, len(ids))
	if len(ids) == 0 {
		return nil
	}
	// By primary key alone, the business checked here: given the
	// business as well, SQLite without statistics walks the index that
	// starts with it, every entry of the business (seconds at 10,000,000,
	// inside the single writer's transaction).
	from, args := entriesByID(r.dialect, nil, ids)
	rows, err := r.q.QueryContext(ctx, `SELECT `+foldColumns+` FROM `+from, args...)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanFoldEntry(rows)
		if err != nil {
			return dbError(err)
		}
		if e.BusinessID == r.businessID {
			r.read[e.ID] = e
		}
	}
	return dbError(rows.Err())
}

// FoldDashboard applies a page of events to the rollups and advances the
// dashboard cursor from after to the page's end, in one transaction. The
// cursor's row is updated first: on PostgreSQL it stays locked to the
// commit, so a second folder of the same page waits, then finds the
// cursor moved and applies nothing.
func (d *DB) FoldDashboard(ctx context.Context, businessID, claim string, after int64, page []loyalty.Event,
	leaseUntil time.Time, fold loyalty.FoldFunc) (bool, error) {
	if len(page) == 0 {
		return true, nil
	}
	// The page is folded before the transaction, which on SQLite holds
	// the one writer: what it reads (the entries, append-only, and the
	// time zone) does not depend on the cursor, and a page folded for a
	// cursor that moved meanwhile is dropped by moveCursor.
	tz, err := timeZone(ctx, d.db, businessID)
	if err != nil {
		return false, dbError(err)
	}
	folds, err := foldEvents(ctx, entryReader{q: d.db, dialect: d.dialect, businessID: businessID}, tz, page, fold)
	if err != nil {
		return false, dbError(err)
	}
	var visits map[string]string
	err = d.runTx(ctx, func(t *tx) error {
		if err := t.moveCursor(ctx, loyalty.DashboardDestination, businessID, claim, after, page[len(page)-1].Seq, leaseUntil); err != nil {
			return err
		}
		visits, err = applyFolds(ctx, t, businessID, folds, &d.visits)
		return err
	})
	if errors.Is(err, errCursorMoved) {
		return false, nil
	}
	if err == nil {
		d.visits.record(businessID, visits)
	}
	return err == nil, err
}

// FollowTx runs fn in the transaction that moves a claimed cursor from
// after to to: both or neither. It reports false, having done nothing,
// when the cursor is no longer claim's at after.
func (d *DB) FollowTx(ctx context.Context, destination, businessID, claim string, after, to int64,
	leaseUntil time.Time, fn func(loyalty.Tx) error) (bool, error) {
	err := d.runTx(ctx, func(t *tx) error {
		if err := t.moveCursor(ctx, destination, businessID, claim, after, to, leaseUntil); err != nil {
			return err
		}
		return fn(t)
	})
	if errors.Is(err, errCursorMoved) {
		return false, nil
	}
	return err == nil, err
}

// moveCursor moves a claimed cursor from after to to, first in its
// transaction: on PostgreSQL the row stays locked to the commit, so a
// second follower of the same page waits, then finds the cursor moved
// (errCursorMoved).
func (t *tx) moveCursor(ctx context.Context, destination, businessID, claim string, after, to int64, leaseUntil time.Time) error {
	held, err := cursorLeases.renew([]any{destination, businessID}, claim, leaseUntil).
		set("last_seq", to).where("last_seq = ?", after).exec(ctx, t)
	if err == nil && !held {
		err = errCursorMoved
	}
	return err
}

// timeZone reads a business's time zone.
func timeZone(ctx context.Context, q querier, businessID string) (string, error) {
	var tz string
	err := q.QueryRowContext(ctx, `SELECT time_zone FROM businesses WHERE id = $1`, businessID).Scan(&tz)
	return tz, err
}

// foldEvents folds events in order.
func foldEvents(ctx context.Context, r entryReader, tz string, events []loyalty.Event, fold loyalty.FoldFunc) ([]loyalty.DayFold, error) {
	if err := r.prefetch(ctx, events); err != nil {
		return nil, err
	}
	var out []loyalty.DayFold
	for _, e := range events {
		f, err := fold(ctx, r, tz, e)
		if err != nil {
			return nil, err
		}
		out = append(out, f...)
	}
	return out, nil
}

// applyFolds adds folds to the day rows, one write per day and branch,
// and moves each visitor's last visit day forward (but for the days known
// stored, see visitCache); it returns the visit days it wrote.
func applyFolds(ctx context.Context, t *tx, businessID string, folds []loyalty.DayFold, known *visitCache) (map[string]string, error) {
	var sum foldSum
	sum.add(businessID, folds, known)
	return sum.visits, sum.write(ctx, t, businessID)
}

// DashboardSnapshot reads the rollups of a period, the live totals and
// the events past the dashboard cursor, folded, in one read-only
// transaction: on PostgreSQL a repeatable-read snapshot, on SQLite (WAL)
// a read transaction, which sees one state of the database throughout.
// What the follower commits meanwhile is therefore counted either in the
// rollups or among the pending events, never in both.
func (d *DB) DashboardSnapshot(ctx context.Context, businessID string, q loyalty.DashboardQuery, fold loyalty.FoldFunc) (loyalty.DashboardData, error) {
	stx, err := d.snapshotTx(ctx)
	if err != nil {
		return loyalty.DashboardData{}, dbError(err)
	}
	defer func() { _ = stx.Rollback() }()
	out, err := d.snapshot(ctx, stx, businessID, q, fold)
	return out, dbError(err)
}

// snapshotTx begins a read-only transaction that sees one state of the
// database throughout: a repeatable-read snapshot on PostgreSQL, a read
// transaction on SQLite (WAL).
func (d *DB) snapshotTx(ctx context.Context) (*sql.Tx, error) {
	var opts *sql.TxOptions
	if d.dialect == Postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return d.db.BeginTx(ctx, opts)
}

func (d *DB) snapshot(ctx context.Context, t *sql.Tx, businessID string, q loyalty.DashboardQuery, fold loyalty.FoldFunc) (loyalty.DashboardData, error) {
	var out loyalty.DashboardData
	var err error
	if out.TimeZone, err = timeZone(ctx, t, businessID); err != nil {
		return out, err
	}
	if out.Rows, err = dashboardRows(ctx, t, businessID, q); err != nil {
		return out, err
	}
	var cursor int64
	err = t.QueryRowContext(ctx, `SELECT last_seq FROM event_cursors WHERE destination = $1 AND business_id = $2`,
		loyalty.DashboardDestination, businessID).Scan(&cursor)
	if err != nil && err != sql.ErrNoRows {
		return out, err
	}
	if out.Pending, err = d.pendingFolds(ctx, t, businessID, cursor, out.TimeZone, fold); err != nil {
		return out, err
	}
	since30, since90 := loyalty.ActiveSince(q.Now, out.TimeZone)
	counts := []struct {
		dest  *int64
		query string
		args  []any
	}{
		{&out.Members, `SELECT COALESCE(SUM(n), 0) FROM customer_counts WHERE business_id = $1`, []any{businessID}},
		{&out.Outstanding, `SELECT COALESCE(SUM(points), 0) FROM customers WHERE business_id = $1 AND deleted_at IS NULL`, []any{businessID}},
		{&out.Active30, `SELECT COUNT(*) FROM dashboard_members WHERE business_id = $1 AND last_visit_day >= $2`, []any{businessID, since30}},
		{&out.Active90, `SELECT COUNT(*) FROM dashboard_members WHERE business_id = $1 AND last_visit_day >= $2`, []any{businessID, since90}},
	}
	for _, c := range counts {
		if err := t.QueryRowContext(ctx, c.query, c.args...).Scan(c.dest); err != nil {
			return out, err
		}
	}
	out.LastVisits = map[string]string{}
	for _, f := range out.Pending {
		if _, seen := out.LastVisits[f.Visitor]; f.Visitor == "" || seen {
			continue
		}
		var day string
		err := t.QueryRowContext(ctx, `SELECT last_visit_day FROM dashboard_members WHERE business_id = $1 AND customer_id = $2`,
			businessID, f.Visitor).Scan(&day)
		if err != nil && err != sql.ErrNoRows {
			return out, err
		}
		out.LastVisits[f.Visitor] = day
	}
	stored, err := rules(ctx, t, loyalty.Business{ID: businessID})
	if err != nil {
		return out, err
	}
	out.Redemption = stored.Redemption
	out.Values, err = pointValues(ctx, t, businessID, q.Now)
	return out, err
}

// dashboardRows sums a period's day rows, over every branch, or at the
// branch and at none (which holds new members and referrals).
func dashboardRows(ctx context.Context, t *sql.Tx, businessID string, q loyalty.DashboardQuery) ([]loyalty.DashboardRow, error) {
	branch, cond, group, args := `''`, ``, ``, []any{businessID, q.From, q.To}
	if q.BranchID != "" {
		branch, cond, group, args = `branch_id`, ` AND branch_id IN ($4, '')`, `, branch_id`, append(args, q.BranchID)
	}
	rows, err := t.QueryContext(ctx, `SELECT day, `+branch+`, SUM(members_new), SUM(visits), SUM(revenue), SUM(points_issued),
			SUM(points_redeemed), SUM(referrals_paid)
		FROM dashboard_days WHERE business_id = $1 AND day >= $2 AND day <= $3`+cond+`
		GROUP BY day`+group, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.DashboardRow
	for rows.Next() {
		var r loyalty.DashboardRow
		f := &r.Figures
		if err := rows.Scan(&r.Day, &r.BranchID, &f.MembersNew, &f.Visits, &f.Revenue, &f.PointsIssued, &f.PointsRedeemed,
			&f.ReferralsPaid); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// pendingFolds folds the business's numbered events after the cursor.
func (d *DB) pendingFolds(ctx context.Context, t *sql.Tx, businessID string, cursor int64, tz string, fold loyalty.FoldFunc) ([]loyalty.DayFold, error) {
	var out []loyalty.DayFold
	for {
		page, err := eventsAfter(ctx, t, businessID, cursor, 1000)
		if err != nil || len(page) == 0 {
			return out, err
		}
		f, err := foldEvents(ctx, entryReader{q: t, dialect: d.dialect, businessID: businessID}, tz, page, fold)
		if err != nil {
			return nil, err
		}
		out, cursor = append(out, f...), page[len(page)-1].Seq
	}
}

// eventsAfter reads up to limit numbered events of a business after seq.
func eventsAfter(ctx context.Context, q querier, businessID string, seq int64, limit int) ([]loyalty.Event, error) {
	return readEvents(ctx, q, `SELECT `+eventColumns+` FROM events
		WHERE business_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, businessID, seq, limit)
}

// pointValues lists the money and points of the business's catalog items
// with a money value (a free product's value, a cashback's amount) that
// can be redeemed at now.
func pointValues(ctx context.Context, t *sql.Tx, businessID string, now time.Time) ([]loyalty.PointValue, error) {
	rows, err := t.QueryContext(ctx, `SELECT type_id, real_value, amount, points FROM rewards
		WHERE business_id = $1 AND kind = 'catalog_item' AND type_id IN ($2, $3) AND enabled AND deleted_at IS NULL
			AND points > 0 AND (expires_at IS NULL OR expires_at > $4) AND (starts_at IS NULL OR starts_at <= $4)`,
		businessID, loyalty.RewardFreeProduct, loyalty.RewardCashback, now.UTC())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.PointValue
	for rows.Next() {
		var typeID int
		var realValue, amount loyalty.Money
		var v loyalty.PointValue
		if err := rows.Scan(&typeID, &realValue, &amount, &v.Points); err != nil {
			return nil, err
		}
		v.Value = amount
		if typeID == loyalty.RewardFreeProduct {
			v.Value = realValue
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
