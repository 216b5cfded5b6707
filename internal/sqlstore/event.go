package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// How events are numbered (see migrations 00015).
//
// On PostgreSQL a transaction inserts its events with seq NULL and
// touches no shared row: a business's transactions never wait for one
// another because of events. The sequencer (SequenceEvents) numbers them
// after they committed, in a transaction that first takes the business's
// event_sequences row with an UPDATE (a row lock), so two sequencers of a
// business run one after the other, and each reads, in a statement that
// starts after it holds the lock, what the one before numbered and
// committed. Only committed events are visible to it; an event whose
// transaction commits later is numbered by the next run. Numbers are
// therefore given once, consecutively, and become visible together at
// the sequencer's commit, after every lower number: a reader that reads
// only numbered events, in seq order, never sees a gap or a number appear
// behind one it passed. The reward batch (batch_sql.go) numbers its own
// events under the same lock, in its one statement, which saves writing
// each of them twice on the hot path.
//
// On SQLite, whose one writer commits transactions one after the other,
// InsertEvent numbers an event as it writes it under the same row.
//
// The cost on PostgreSQL is a short delay before a transaction's event is
// readable: GET /events numbers a business's pending events before
// reading, and a background loop (internal/events) numbers the rest for
// the deliveries.

// sequenceBatch bounds the events one numbering statement takes.
const sequenceBatch = 1000

// InsertEvent writes an event of the transaction's change. On
// PostgreSQL it is not numbered yet (see SequenceEvents). On SQLite it is
// numbered at once: SQLite has one writer, whose transactions commit one
// after the other, so holding the business's sequence row to the commit
// makes no writer wait that would not have waited anyway, and saves the
// sequencer's second write of every event.
func (t *tx) InsertEvent(ctx context.Context, e *loyalty.Event) error {
	return t.insertEvents(ctx, []loyalty.Event{*e})
}

// insertEvents writes events in their order; on SQLite it numbers them,
// taking each business's numbers with one statement.
func (t *tx) insertEvents(ctx context.Context, events []loyalty.Event) error {
	seqs := make([]sql.NullInt64, len(events))
	if t.sqlite {
		counts := map[string]int64{}
		for _, e := range events {
			counts[e.BusinessID]++
		}
		next := map[string]int64{}
		for business, n := range counts {
			var last int64
			if err := t.stmt(ctx, takeSequence).QueryRowContext(ctx, business, n).Scan(&last); err != nil {
				return dbError(err)
			}
			next[business] = last - n + 1
		}
		for i, e := range events {
			seqs[i] = sql.NullInt64{Int64: next[e.BusinessID], Valid: true}
			next[e.BusinessID]++
		}
	}
	for i, e := range events {
		if _, err := t.stmt(ctx, insertEvent).ExecContext(ctx, e.ID, e.BusinessID, seqs[i], e.Type, e.CreatedAt.UTC(), string(e.Data),
			nullInt(e.EntryID)); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// insertEvent writes an event; takeSequence takes SQLite's next $2
// numbers of business $1 and returns the last.
const (
	insertEvent  = `INSERT INTO events (id, business_id, seq, type, created_at, data, entry_id) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	takeSequence = `INSERT INTO event_sequences (business_id, last_seq) VALUES ($1, $2)
		ON CONFLICT (business_id) DO UPDATE SET last_seq = event_sequences.last_seq + excluded.last_seq RETURNING last_seq`
)

// eventStatements are the statements a transaction writes events with,
// prepared on SQLite's writer (see DB.writeStmt) before the transaction
// takes it.
var eventStatements = []string{insertEvent, takeSequence}

// SequenceEvents numbers the committed, unnumbered events of a business
// in id order, after its last number, and returns how many it numbered.
func (d *DB) SequenceEvents(ctx context.Context, businessID string) (int, error) {
	// Most calls (a reader polling GET /events) find nothing to number: a
	// read says so without taking the writer (SQLite) or the sequence row.
	var pending int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM events WHERE business_id = $1 AND seq IS NULL LIMIT 1) AS p`,
		businessID).Scan(&pending)
	if err != nil || pending == 0 {
		return 0, dbError(err)
	}
	total := 0
	for {
		n := 0
		err := d.runTx(ctx, func(t *tx) error {
			last, err := t.lockSequence(ctx, businessID)
			if err != nil {
				return err
			}
			res, err := t.ExecContext(ctx, `UPDATE events SET seq = $2 + n.rn
				FROM (SELECT p.id, row_number() OVER (ORDER BY p.id) AS rn FROM events p
					WHERE p.business_id = $1 AND p.seq IS NULL ORDER BY p.id LIMIT $3) AS n
				WHERE events.id = n.id`, businessID, last, sequenceBatch)
			if err != nil {
				return err
			}
			affected, err := res.RowsAffected()
			if err != nil || affected == 0 {
				return err
			}
			n = int(affected)
			_, err = t.ExecContext(ctx, `UPDATE event_sequences SET last_seq = $2 WHERE business_id = $1`, businessID, last+affected)
			return err
		})
		if err != nil {
			return total, dbError(err)
		}
		total += n
		if n < sequenceBatch {
			return total, nil
		}
	}
}

// lockSequence takes the business's event_sequences row (creating it at
// 0 the first time) for the rest of the transaction and returns its last
// number.
func (t *tx) lockSequence(ctx context.Context, businessID string) (int64, error) {
	const lock = `UPDATE event_sequences SET last_seq = last_seq WHERE business_id = $1 RETURNING last_seq`
	var last int64
	err := t.QueryRowContext(ctx, lock, businessID).Scan(&last)
	if err != sql.ErrNoRows {
		return last, err
	}
	if _, err := t.ExecContext(ctx, `INSERT INTO event_sequences (business_id, last_seq) VALUES ($1, 0)
		ON CONFLICT (business_id) DO NOTHING`, businessID); err != nil {
		return 0, err
	}
	err = t.QueryRowContext(ctx, lock, businessID).Scan(&last)
	return last, err
}

// UnsequencedBusinesses lists up to limit businesses with events to number.
func (d *DB) UnsequencedBusinesses(ctx context.Context, limit int) ([]string, error) {
	return textColumn(ctx, d.db, `SELECT DISTINCT business_id FROM events WHERE seq IS NULL LIMIT $1`, limit)
}

// Events returns a page of a business's numbered events after q.After.
func (d *DB) Events(ctx context.Context, businessID string, q loyalty.EventQuery) ([]loyalty.Event, error) {
	args := []any{businessID, q.After}
	cond := ""
	if len(q.Types) > 0 {
		marks := make([]string, len(q.Types))
		for i, typ := range q.Types {
			args = append(args, typ)
			marks[i] = fmt.Sprintf("$%d", len(args))
		}
		op := "IN"
		if q.Not {
			op = "NOT IN"
		}
		cond = " AND type " + op + " (" + strings.Join(marks, ", ") + ")"
	}
	args = append(args, q.Limit)
	out, err := readEvents(ctx, d.db, `SELECT `+eventColumns+` FROM events
		WHERE business_id = $1 AND seq > $2`+cond+fmt.Sprintf(` ORDER BY seq LIMIT $%d`, len(args)), args...)
	if err != nil || q.Refs {
		return out, err
	}
	return out, d.renderEntries(ctx, businessID, out)
}

// eventColumns are what readEvents scans.
const eventColumns = `id, business_id, seq, type, created_at, data, entry_id`

// readEvents runs a query of eventColumns of a business's events; an
// event that names an entry keeps the reference (see renderEntries).
func readEvents(ctx context.Context, q querier, query string, args ...any) ([]loyalty.Event, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Event
	for rows.Next() {
		var e loyalty.Event
		var data string
		var entry sql.NullInt64
		if err := rows.Scan(&e.ID, &e.BusinessID, &e.Seq, &e.Type, &e.CreatedAt, &data, &entry); err != nil {
			return nil, dbError(err)
		}
		e.CreatedAt, e.Data, e.EntryID = e.CreatedAt.UTC(), []byte(data), entry.Int64
		out = append(out, e)
	}
	return out, dbError(rows.Err())
}

// renderEntries sets the data of the events that name an entry to the
// entry as GET /transactions shows it, read in one query.
func (d *DB) renderEntries(ctx context.Context, businessID string, events []loyalty.Event) error {
	var ids []int64
	for _, e := range events {
		if e.EntryID != 0 && len(e.Data) == 0 {
			ids = append(ids, e.EntryID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	from, args := entriesByID(d.dialect, []any{businessID}, ids)
	rows, err := d.db.QueryContext(ctx, `SELECT `+transactionColumns+` FROM `+from+` WHERE t.business_id = $1`, args...)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	shown := map[int64][]byte{}
	for rows.Next() {
		t, err := scanTransaction(rows)
		if err != nil {
			return dbError(err)
		}
		if shown[t.ID], err = json.Marshal(loyalty.NewTransactionJSON(t)); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return dbError(err)
	}
	for i, e := range events {
		if e.EntryID == 0 || len(e.Data) > 0 {
			continue
		}
		if events[i].Data = shown[e.EntryID]; events[i].Data == nil {
			return fmt.Errorf("sqlstore: event %s names entry %d, which is not in the ledger", e.ID, e.EntryID)
		}
	}
	return nil
}

// BehindCursors lists up to limit businesses whose numbered events go
// beyond destination's cursor, which no claim but claim holds at now.
func (d *DB) BehindCursors(ctx context.Context, destination, claim string, now time.Time, limit int) ([]string, error) {
	return textColumn(ctx, d.db, `SELECT s.business_id FROM event_sequences s
		LEFT JOIN event_cursors c ON c.destination = $1 AND c.business_id = s.business_id
		WHERE s.last_seq > COALESCE(c.last_seq, 0) AND (c.lease_until IS NULL OR c.lease_until <= $2 OR c.claim = $4)
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

// PruneEvents removes the numbered events created before t. Ids are
// UUIDv7 in hex, which begin with their creation time in milliseconds, so
// the primary key finds them in id order, a bounded batch per statement:
// no index on created_at is kept for it, and no plan rests on statistics.
func (d *DB) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	const batch = 5000
	cutoff := fmt.Sprintf("%012x%020d", before.UnixMilli(), 0)
	total := 0
	for {
		res, err := d.wdb.ExecContext(ctx, `DELETE FROM events WHERE id IN (
			SELECT id FROM events WHERE id < $1 AND seq IS NOT NULL ORDER BY id LIMIT $2)`, cutoff, batch)
		if err != nil {
			return total, dbError(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, dbError(err)
		}
		total += int(n)
		if n < batch {
			return total, nil
		}
	}
}
