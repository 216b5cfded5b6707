package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// voucherColumns are a voucher's columns, with the title and points of
// its reward (rw, joined on its id).
const voucherColumns = `v.id, v.business_id, v.customer_id, v.entry_id, v.reward_id, v.quantity, v.points, v.code,
	v.created_at, v.expires_at, v.handed_over_at, v.handed_over_by, v.handed_over_branch, v.returned_at, v.return_entry_id,
	rw.title, rw.points`

// voucherFrom is the voucher table joined with its reward.
const voucherFrom = ` FROM vouchers v LEFT JOIN rewards rw ON rw.id = v.reward_id AND rw.business_id = v.business_id`

func scanVoucher(row scanner) (loyalty.Voucher, error) {
	var v loyalty.Voucher
	var handed, returned sql.NullTime
	var by, branch, title sql.NullString
	var ret, points sql.NullInt64
	err := row.Scan(&v.ID, &v.BusinessID, &v.CustomerID, &v.EntryID, &v.RewardID, &v.Quantity, &v.Points, &v.Code,
		&v.CreatedAt, &v.ExpiresAt, &handed, &by, &branch, &returned, &ret, &title, &points)
	if err == sql.ErrNoRows {
		return v, loyalty.Errorf(loyalty.ENotFound, "Voucher not found.")
	}
	v.HandedOverAt, v.HandedOverBy, v.HandedOverBranch = handed.Time, by.String, branch.String
	v.ReturnedAt, v.ReturnEntryID = returned.Time, ret.Int64
	if title.Valid {
		v.Reward = &loyalty.Reward{ID: v.RewardID, BusinessID: v.BusinessID, Title: title.String, Points: points.Int64}
	}
	return v, err
}

// scanVouchers reads every row of a vouchers query.
func scanVouchers(rows *sql.Rows, err error) ([]loyalty.Voucher, error) {
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := []loyalty.Voucher{}
	for rows.Next() {
		v, err := scanVoucher(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, v)
	}
	return out, dbError(rows.Err())
}

// CustomerVouchers implements loyalty.VoucherReader.
func (d *DB) CustomerVouchers(ctx context.Context, businessID, customerID string) ([]loyalty.Voucher, error) {
	return scanVouchers(d.db.QueryContext(ctx, `SELECT `+voucherColumns+voucherFrom+`
		WHERE v.business_id = $1 AND v.customer_id = $2 ORDER BY v.created_at DESC, v.id DESC`, businessID, customerID))
}

// DueVouchers implements loyalty.VoucherReader: it walks the index of the
// vouchers still waiting in expiry order.
func (d *DB) DueVouchers(ctx context.Context, businessID string, at time.Time, limit int) ([]loyalty.Voucher, error) {
	q := `SELECT ` + voucherColumns + voucherFrom + ` WHERE v.handed_over_at IS NULL AND v.returned_at IS NULL
		AND v.expires_at <= $1`
	args := []any{at.UTC(), limit}
	if businessID != "" {
		q += ` AND v.business_id = $3`
		args = append(args, businessID)
	}
	return scanVouchers(d.db.QueryContext(ctx, q+` ORDER BY v.expires_at LIMIT $2`, args...))
}

// InsertVoucher implements loyalty.VoucherTx; it gives the voucher its id.
func (t *tx) InsertVoucher(ctx context.Context, v *loyalty.Voucher) error {
	v.ID = loyalty.NewID()
	_, err := t.ExecContext(ctx, `INSERT INTO vouchers (id, business_id, customer_id, entry_id, reward_id, quantity, points, code,
		created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, v.ID, v.BusinessID, v.CustomerID, v.EntryID,
		v.RewardID, v.Quantity, v.Points, v.Code, v.CreatedAt.UTC(), v.ExpiresAt.UTC())
	return dbError(err)
}

// VoucherByCode implements loyalty.VoucherTx.
func (t *tx) VoucherByCode(ctx context.Context, businessID, code string) (loyalty.Voucher, error) {
	v, err := scanVoucher(t.QueryRowContext(ctx, `SELECT `+voucherColumns+voucherFrom+` WHERE v.business_id = $1 AND v.code = $2`,
		businessID, code))
	return v, dbError(err)
}

// VoucherOfEntry implements loyalty.VoucherTx.
func (t *tx) VoucherOfEntry(ctx context.Context, businessID string, entryID int64) (loyalty.Voucher, error) {
	v, err := scanVoucher(t.QueryRowContext(ctx, `SELECT `+voucherColumns+voucherFrom+` WHERE v.entry_id = $1 AND v.business_id = $2`,
		entryID, businessID))
	return v, dbError(err)
}

// HandOverVoucher implements loyalty.VoucherTx: a compare-and-set against
// a concurrent hand-over or return.
func (t *tx) HandOverVoucher(ctx context.Context, v loyalty.Voucher) (bool, error) {
	return t.changed(t.ExecContext(ctx, `UPDATE vouchers SET handed_over_at = $1, handed_over_by = $2, handed_over_branch = $3
		WHERE id = $4 AND handed_over_at IS NULL AND returned_at IS NULL`, v.HandedOverAt.UTC(), v.HandedOverBy,
		nullString(v.HandedOverBranch), v.ID))
}

// ReturnVoucher implements loyalty.VoucherTx: a compare-and-set against a
// concurrent hand-over or return.
func (t *tx) ReturnVoucher(ctx context.Context, v loyalty.Voucher) (bool, error) {
	return t.changed(t.ExecContext(ctx, `UPDATE vouchers SET returned_at = $1, return_entry_id = $2
		WHERE id = $3 AND handed_over_at IS NULL AND returned_at IS NULL`, v.ReturnedAt.UTC(), v.ReturnEntryID, v.ID))
}

// changed reports whether an update changed one row.
func (t *tx) changed(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}
