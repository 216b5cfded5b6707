package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// The cursors of the event log's destinations (NATS, each webhook
// endpoint, the dashboard): how far each has followed a business's
// events, leased to one worker at a time.

// cursorLeases are the cursors as leases alone: a cursor's worker takes
// it again to renew it, and another takes it once the lease ran out.
var cursorLeases = &leaseQueue{table: "event_cursors", keyCols: []string{"destination", "business_id"},
	claimCol: "claim", untilCol: "lease_until"}

// BehindCursors lists up to limit businesses whose numbered events go
// beyond destination's cursor, which no claim but claim holds at now.
func (d *DB) BehindCursors(ctx context.Context, destination, claim string, now time.Time, limit int) ([]string, error) {
	return textColumn(ctx, d.db, `SELECT s.business_id FROM event_sequences s
		LEFT JOIN event_cursors c ON c.destination = $1 AND c.business_id = s.business_id
		WHERE `+d.lastSeqSQL()+` > COALESCE(c.last_seq, 0) AND (c.lease_until IS NULL OR c.lease_until <= $2 OR c.claim = $4)
		ORDER BY s.business_id LIMIT $3`, destination, now.UTC(), limit, claim)
}

// CursorAt is the sequence a destination's cursor of a business stands
// at, 0 for none, whoever holds it.
func (d *DB) CursorAt(ctx context.Context, destination, businessID string) (int64, error) {
	var seq int64
	err := d.db.QueryRowContext(ctx, `SELECT last_seq FROM event_cursors WHERE destination = $1 AND business_id = $2`,
		destination, businessID).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq, dbError(err)
}

// ClaimCursor leases destination's cursor of a business for claim until
// leaseUntil, unless another claim holds it at now; the UPDATE's condition
// decides between workers racing for it. It returns the cursor's sequence.
func (d *DB) ClaimCursor(ctx context.Context, destination, businessID, claim string, now, leaseUntil time.Time) (int64, bool, error) {
	var seq int64
	ok, err := cursorLeases.take(ctx, d.wdb, []any{destination, businessID}, claim, now, leaseUntil, "last_seq", &seq)
	return seq, ok, dbError(err)
}

// AdvanceCursor moves a claimed cursor forward to seq and extends the
// lease; false when claim no longer holds it.
func (d *DB) AdvanceCursor(ctx context.Context, destination, businessID, claim string, seq int64, leaseUntil time.Time) (bool, error) {
	held, err := cursorLeases.renew([]any{destination, businessID}, claim, leaseUntil).
		set("last_seq", seq).where("last_seq <= ?", seq).exec(ctx, d.wdb)
	return held, dbError(err)
}

// ReleaseCursor ends claim's lease on a cursor.
func (d *DB) ReleaseCursor(ctx context.Context, destination, businessID, claim string) error {
	_, err := cursorLeases.finish([]any{destination, businessID}, claim, "").setSQL("claim", "NULL").exec(ctx, d.wdb)
	return dbError(err)
}
