package sqlstore

import (
	"context"
	"database/sql"
	"time"
)

// The cursors of the event log's destinations (NATS, each webhook
// endpoint, the dashboard): how far each has followed a business's
// events, leased to one worker at a time.

// BehindCursors lists up to limit businesses whose numbered events go
// beyond destination's cursor, which no claim but claim holds at now.
func (d *DB) BehindCursors(ctx context.Context, destination, claim string, now time.Time, limit int) ([]string, error) {
	return textColumn(ctx, d.db, `SELECT s.business_id FROM event_sequences s
		LEFT JOIN event_cursors c ON c.destination = $1 AND c.business_id = s.business_id
		WHERE `+d.lastSeqSQL()+` > COALESCE(c.last_seq, 0) AND (c.lease_until IS NULL OR c.lease_until <= $2 OR c.claim = $4)
		ORDER BY s.business_id LIMIT $3`, destination, now.UTC(), limit, claim)
}

// ClaimCursor leases destination's cursor of a business for claim until
// leaseUntil, unless another claim holds it at now; the UPDATE's condition
// decides between workers racing for it. It returns the cursor's sequence.
func (d *DB) ClaimCursor(ctx context.Context, destination, businessID, claim string, now, leaseUntil time.Time) (int64, bool, error) {
	if _, err := d.wdb.ExecContext(ctx, `INSERT INTO event_cursors (destination, business_id, last_seq) VALUES ($1, $2, 0)
		ON CONFLICT (destination, business_id) DO NOTHING`, destination, businessID); err != nil {
		return 0, false, dbError(err)
	}
	var seq int64
	err := d.wdb.QueryRowContext(ctx, `UPDATE event_cursors SET claim = $3, lease_until = $4
		WHERE destination = $1 AND business_id = $2 AND (lease_until IS NULL OR lease_until <= $5 OR claim = $3) RETURNING last_seq`,
		destination, businessID, claim, leaseUntil.UTC(), now.UTC()).Scan(&seq)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, dbError(err)
	}
	return seq, true, nil
}

// AdvanceCursor moves a claimed cursor forward to seq and extends the
// lease; false when claim no longer holds it.
func (d *DB) AdvanceCursor(ctx context.Context, destination, businessID, claim string, seq int64, leaseUntil time.Time) (bool, error) {
	res, err := d.wdb.ExecContext(ctx, `UPDATE event_cursors SET last_seq = $4, lease_until = $5
		WHERE destination = $1 AND business_id = $2 AND claim = $3 AND last_seq <= $4`,
		destination, businessID, claim, seq, leaseUntil.UTC())
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// ReleaseCursor ends claim's lease on a cursor.
func (d *DB) ReleaseCursor(ctx context.Context, destination, businessID, claim string) error {
	_, err := d.wdb.ExecContext(ctx, `UPDATE event_cursors SET claim = NULL, lease_until = NULL
		WHERE destination = $1 AND business_id = $2 AND claim = $3`, destination, businessID, claim)
	return dbError(err)
}
