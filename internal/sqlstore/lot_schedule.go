package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// DueLotCustomers returns up to limit customers with a lot due at at: a
// pending lot whose activation came, or an active one whose expiry came.
// With businessID it looks at that business only (a sandbox business,
// whose clock runs ahead). Each query walks an index in due order.
func (d *DB) DueLotCustomers(ctx context.Context, businessID string, at time.Time, limit int) ([]loyalty.CustomerKey, error) {
	queries := []string{
		`SELECT business_id, customer_id FROM point_lots WHERE state = 'pending' AND activates_at <= $1 ORDER BY activates_at LIMIT $2`,
		`SELECT business_id, customer_id FROM point_lots WHERE state = 'active' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
	}
	args := []any{at.UTC(), limit}
	if businessID != "" {
		queries = []string{
			`SELECT business_id, customer_id FROM point_lots WHERE business_id = $3 AND state = 'pending' AND activates_at <= $1 LIMIT $2`,
			`SELECT business_id, customer_id FROM point_lots WHERE business_id = $3 AND state = 'active' AND expires_at <= $1 LIMIT $2`,
		}
		args = append(args, businessID)
	}
	seen := map[loyalty.CustomerKey]bool{}
	var out []loyalty.CustomerKey
	for _, q := range queries {
		rows, err := d.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, dbError(err)
		}
		for rows.Next() {
			var k loyalty.CustomerKey
			if err := rows.Scan(&k.BusinessID, &k.CustomerID); err != nil {
				rows.Close()
				return nil, dbError(err)
			}
			if !seen[k] && len(out) < limit {
				seen[k] = true
				out = append(out, k)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, dbError(err)
		}
	}
	return out, nil
}

// DueLots locks a customer's row and returns its lots due at at (pending
// ones whose activation came, active ones whose expiry came). Holding the
// row, no other change moves those lots until the transaction ends.
func (t *tx) DueLots(ctx context.Context, k loyalty.CustomerKey, at time.Time) ([]loyalty.PointLot, error) {
	if err := t.lockCustomer(ctx, k.BusinessID, k.CustomerID); err != nil {
		return nil, dbError(err)
	}
	rows, err := t.QueryContext(ctx, `SELECT `+lotColumns+`, `+lotBranch+` FROM point_lots l
		WHERE l.business_id = $1 AND l.customer_id = $2
		AND ((l.state = 'pending' AND l.activates_at <= $3) OR (l.state = 'active' AND l.expires_at <= $3))
		ORDER BY l.id`, k.BusinessID, k.CustomerID, at.UTC())
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

// lockCustomer locks a customer's row for the rest of the transaction (a
// no-op update locks on both engines).
func (t *tx) lockCustomer(ctx context.Context, businessID, customerID string) error {
	_, err := t.ExecContext(ctx, `UPDATE customers SET tx_count = tx_count WHERE business_id = $1 AND user_id = $2`,
		businessID, customerID)
	return err
}

// SettleLot writes a lot's activation or expiry as the domain decided it
// (loyalty.SettleLotAt): the lot as it is after, the balance moved by the
// entry, and the entry. It reports false, writing nothing, when the lot is
// no longer as it was before (another scheduler got there first). The
// entry is unique per lot and kind, so that not even a second path could
// write it twice.
func (t *tx) SettleLot(ctx context.Context, s loyalty.LotSettlement) (bool, error) {
	l, e := s.Before, s.Entry
	res, err := t.ExecContext(ctx, `UPDATE point_lots SET state = $1, remaining = $2 WHERE id = $3 AND state = $4 AND remaining = $5`,
		s.After.State, s.After.Remaining, l.ID, l.State, l.Remaining)
	if err != nil {
		return false, dbError(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, dbError(err)
	}
	err = t.QueryRowContext(ctx, `UPDATE customers SET points = points + $1, pending_points = pending_points + $2,
		expired_points = expired_points + $3, tx_count = tx_count + 1
		WHERE business_id = $4 AND user_id = $5 RETURNING points, giftcard, pending_points`,
		e.Points-e.Pending, e.Pending, e.Expired, e.BusinessID, e.CustomerID).Scan(&e.Balance.Points, &e.Balance.Giftcard, &e.Balance.Pending)
	if err != nil {
		return false, dbError(err)
	}
	err = t.QueryRowContext(ctx, `INSERT INTO transactions (`+entryColumns+`, lot_id) VALUES (`+entryValues+`, $29) RETURNING id`,
		append(entryArgs(e), l.ID)...).Scan(&e.ID)
	return err == nil, dbError(err)
}

// TakeLease takes or renews the lease of a job for holder until until;
// it reports false while another holder's lease runs (past now).
func (d *DB) TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	var got string
	ok, err := jobLeases.take(ctx, d.wdb, []any{name}, holder, now, until, "holder", &got)
	return ok, dbError(err)
}

// jobLeases are the leases of the jobs one instance runs at a time (the
// lot scheduler): leases alone, renewed by their holder.
var jobLeases = &leaseQueue{table: "job_leases", keyCols: []string{"name"}, claimCol: "holder", untilCol: "lease_until"}

// SandboxBusinesses returns the sandbox businesses with their clocks.
func (d *DB) SandboxBusinesses(ctx context.Context) ([]loyalty.Business, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+businessColumns+` FROM businesses b WHERE b.sandbox ORDER BY b.id`)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Business
	for rows.Next() {
		var b loyalty.Business
		if err := scanBusiness(rows, &b); err != nil {
			return nil, dbError(err)
		}
		out = append(out, b)
	}
	return out, dbError(rows.Err())
}

const lotColumns = `l.id, l.business_id, l.customer_id, COALESCE(l.entry_id, 0), l.earned, l.remaining, l.activates_at, l.expires_at, l.state`

// scanLot scans lotColumns, then the columns after them into more.
func scanLot(row scanner, more ...any) (loyalty.PointLot, error) {
	var l loyalty.PointLot
	var expires sql.NullTime
	err := row.Scan(append([]any{&l.ID, &l.BusinessID, &l.CustomerID, &l.EntryID, &l.Earned, &l.Remaining, &l.ActivatesAt, &expires,
		&l.State}, more...)...)
	l.ExpiresAt = expires.Time
	return l, err
}

// lotFilterColumns maps the filterable fields of a customer's lots to SQL.
var lotFilterColumns = map[string]string{"state": "l.state", "expires_at": "l.expires_at", "activates_at": "l.activates_at"}

// CustomerLots pages the lots of an active customer of the business (else
// ENotFound), newest first.
func (d *DB) CustomerLots(ctx context.Context, businessID, customerID string, q loyalty.ListQuery) ([]loyalty.PointLot, int, error) {
	var one int
	err := d.db.QueryRowContext(ctx, `SELECT 1 FROM customers WHERE business_id = $1 AND user_id = $2 AND deleted_at IS NULL`,
		businessID, customerID).Scan(&one)
	if err == sql.ErrNoRows {
		return nil, 0, loyalty.Errorf(loyalty.ENotFound, "Customer not found.")
	} else if err != nil {
		return nil, 0, dbError(err)
	}
	from, args, err := listWhere([]string{"l.business_id = $1", "l.customer_id = $2"}, []any{businessID, customerID}, q, lotFilterColumns)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.PointLot
	total, err := d.listPage(ctx, lotColumns, `FROM point_lots l`+from, `l.id DESC`, args, q, func(rows *sql.Rows) error {
		l, err := scanLot(rows)
		out = append(out, l)
		return err
	})
	return out, total, err
}

// SetClockOffset moves a sandbox business's clock offset from old to
// offset; EConflict when it is no longer old.
func (d *DB) SetClockOffset(ctx context.Context, businessID string, old, offset time.Duration) error {
	return d.runTx(ctx, func(t *tx) error {
		t.accessChanged() // token lookups read the offset with the key
		res, err := t.ExecContext(ctx, `UPDATE businesses SET clock_offset_seconds = $1
			WHERE id = $2 AND sandbox AND clock_offset_seconds = $3`, int64(offset/time.Second), businessID, int64(old/time.Second))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			if err == nil {
				err = loyalty.Errorf(loyalty.EConflict, "The clock moved meanwhile; read it and try again.")
			}
			return err
		}
		return nil
	})
}
