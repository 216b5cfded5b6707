package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// DueNoticeCustomers returns up to limit customers with a lot whose
// notice time came at at, walking point_lots_notice in time order (with
// businessID, that business's lots only).
func (d *DB) DueNoticeCustomers(ctx context.Context, businessID string, at time.Time, limit int) ([]loyalty.CustomerKey, error) {
	query := `SELECT DISTINCT business_id, customer_id FROM (SELECT business_id, customer_id FROM point_lots
		WHERE notify_at <= $1 ORDER BY notify_at LIMIT $2) n`
	args := []any{at.UTC(), limit}
	if businessID != "" {
		query = `SELECT DISTINCT business_id, customer_id FROM point_lots WHERE business_id = $3 AND notify_at <= $1 LIMIT $2`
		args = append(args, businessID)
	}
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.CustomerKey
	for rows.Next() {
		var k loyalty.CustomerKey
		if err := rows.Scan(&k.BusinessID, &k.CustomerID); err != nil {
			return nil, dbError(err)
		}
		out = append(out, k)
	}
	return out, dbError(rows.Err())
}

// NoticeLots locks the customer's row and returns its pending and active
// lots whose notice time came, and whether it wants notices. Lots that
// are spent, expired or cancelled lose their notice time here: there is
// nothing left to tell of.
func (t *tx) NoticeLots(ctx context.Context, k loyalty.CustomerKey, at time.Time) ([]loyalty.PointLot, bool, error) {
	var wanted bool
	err := t.QueryRowContext(ctx, `UPDATE customers SET tx_count = tx_count WHERE business_id = $1 AND user_id = $2
		RETURNING expiry_notices`, k.BusinessID, k.CustomerID).Scan(&wanted)
	if err != nil {
		return nil, false, dbError(err)
	}
	if _, err := t.ExecContext(ctx, `UPDATE point_lots SET notify_at = NULL WHERE business_id = $1 AND customer_id = $2
		AND notify_at <= $3 AND state NOT IN ('pending', 'active')`, k.BusinessID, k.CustomerID, at.UTC()); err != nil {
		return nil, false, dbError(err)
	}
	rows, err := t.QueryContext(ctx, `SELECT `+lotColumns+` FROM point_lots l WHERE l.business_id = $1 AND l.customer_id = $2
		AND l.notify_at <= $3 ORDER BY l.expires_at, l.id`, k.BusinessID, k.CustomerID, at.UTC())
	if err != nil {
		return nil, false, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.PointLot
	for rows.Next() {
		l, err := scanLot(rows)
		if err != nil {
			return nil, false, dbError(err)
		}
		out = append(out, l)
	}
	return out, wanted, dbError(rows.Err())
}

// RecordNotice records a customer's notice of an expiry once.
func (t *tx) RecordNotice(ctx context.Context, k loyalty.CustomerKey, expiresAt time.Time) (bool, error) {
	res, err := t.ExecContext(ctx, `INSERT INTO point_expiry_notices (business_id, customer_id, expires_at, created_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, k.BusinessID, k.CustomerID, expiresAt.UTC(), t.now)
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// NoticeDone clears the notice time of lots (at most a customer's due ones).
func (t *tx) NoticeDone(ctx context.Context, lotIDs []int64) error {
	for len(lotIDs) > 0 {
		chunk := lotIDs[:min(len(lotIDs), 500)]
		lotIDs = lotIDs[len(chunk):]
		marks := make([]string, len(chunk))
		args := make([]any, len(chunk))
		for i, id := range chunk {
			marks[i], args[i] = fmt.Sprintf("$%d", i+1), id
		}
		if _, err := t.ExecContext(ctx, `UPDATE point_lots SET notify_at = NULL WHERE id IN (`+strings.Join(marks, ", ")+`)`, args...); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// ExpiryNotices reports whether a person wants expiry notices from the
// businesses: true unless every membership among them said no.
func (d *DB) ExpiryNotices(ctx context.Context, userID string, businessIDs []string) (bool, error) {
	if len(businessIDs) == 0 {
		return true, nil
	}
	marks, args := inIDs(1, businessIDs)
	var off, all int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(CASE WHEN NOT expiry_notices THEN 1 END), COUNT(*) FROM customers
		WHERE user_id = $1 AND deleted_at IS NULL AND business_id IN (`+marks+`)`, append([]any{userID}, args...)...).Scan(&off, &all)
	return all == 0 || off < all, dbError(err)
}

// SetExpiryNotices sets the preference on the person's memberships of the businesses.
func (d *DB) SetExpiryNotices(ctx context.Context, userID string, businessIDs []string, on bool) error {
	if len(businessIDs) == 0 {
		return nil
	}
	return d.runTx(ctx, func(t *tx) error {
		marks, args := inIDs(2, businessIDs)
		_, err := t.ExecContext(ctx, `UPDATE customers SET expiry_notices = $1 WHERE user_id = $2 AND business_id IN (`+marks+`)`,
			append([]any{on, userID}, args...)...)
		return err
	})
}
