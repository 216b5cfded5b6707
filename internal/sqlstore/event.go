package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

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
// each of them twice on the hot path; it numbers the business's
// committed, unnumbered events first, so that a customer's events keep
// the order of their changes whichever road wrote them.
//
// On SQLite, whose one writer commits transactions one after the other,
// InsertEvent numbers an event as it writes it, after the business's
// newest, and the table is keyed by (business_id, seq)
// (migrations/sqlite/00030): no event is ever unnumbered there. The
// newest event holds the business's last number, so the event_sequences
// row is not written at each commit (a page more in the WAL for every
// batch of rewards): it lists the business, and keeps the last number
// only as of the last prune, which may remove every event of a business
// (see lastSeqSQL).
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
// after the other, so numbering in the transaction makes no writer wait
// that would not have waited anyway, and saves the sequencer's second
// write of every event.
func (t *tx) InsertEvent(ctx context.Context, e *loyalty.Event) error {
	return t.insertEvents(ctx, []loyalty.Event{*e})
}

// insertEvents writes events in their order; on SQLite it numbers them
// after each business's last number.
func (t *tx) insertEvents(ctx context.Context, events []loyalty.Event) error {
	seqs := make([]sql.NullInt64, len(events))
	if t.sqlite {
		counts := map[string]int64{}
		for _, e := range events {
			counts[e.BusinessID]++
		}
		next := map[string]int64{}
		for business := range counts {
			var newest int64
			var kept sql.NullInt64
			if err := t.stmt(ctx, lastSequence).QueryRowContext(ctx, business).Scan(&newest, &kept); err != nil {
				return dbError(err)
			}
			if !kept.Valid { // the business's first event: list it
				if _, err := t.ExecContext(ctx, `INSERT INTO event_sequences (business_id, last_seq) VALUES ($1, 0)`, business); err != nil {
					return dbError(err)
				}
			}
			next[business] = max(newest, kept.Int64) + 1
		}
		for i, e := range events {
			seqs[i] = sql.NullInt64{Int64: next[e.BusinessID], Valid: true}
			next[e.BusinessID]++
		}
	}
	// A statement per run of rows, the longest that fits first: a reward
	// batch's events take one statement, or a few, instead of one each.
	for len(events) > 0 {
		k := len(eventRowCounts) - 1
		for len(events) < eventRowCounts[k] {
			k--
		}
		n := eventRowCounts[k]
		args := make([]any, 0, n*eventArgs)
		for i, e := range events[:n] {
			args = append(args, e.ID, e.BusinessID, seqs[i], e.Type, e.CreatedAt.UTC(), string(e.Data), nullInt(e.EntryID))
		}
		if _, err := t.stmt(ctx, eventRows[k]).ExecContext(ctx, args...); err != nil {
			return dbError(err)
		}
		events, seqs = events[n:], seqs[n:]
	}
	return nil
}

// eventRows[k] writes eventRowCounts[k] events: any number up to 8 (a
// reward batch's, mostly) in one statement, larger runs in a few.
// lastSequence reads, on SQLite, the number of business $1's newest event
// (0: none) and its event_sequences row's (NULL: no row).
var (
	eventRowCounts = []int{1, 2, 3, 4, 5, 6, 7, 8, 16, 32}
	eventRows      = eventInserts(eventRowCounts)
)

const (
	eventArgs    = 7 // the columns of an event row
	lastSequence = `SELECT COALESCE((SELECT seq FROM events WHERE business_id = $1 ORDER BY seq DESC LIMIT 1), 0),
		(SELECT last_seq FROM event_sequences WHERE business_id = $1)`
)

// lastSeqSQL is the SQL of the last number of the business of
// event_sequences row s: the row's on PostgreSQL; on SQLite the larger of
// the row's (as of the last prune) and the newest event's.
func (d *DB) lastSeqSQL() string {
	if d.dialect == SQLite {
		return `MAX(s.last_seq, COALESCE((SELECT e.seq FROM events e WHERE e.business_id = s.business_id ORDER BY e.seq DESC LIMIT 1), 0))`
	}
	return `s.last_seq`
}

// eventInserts are the statements that insert counts[k] events.
func eventInserts(counts []int) []string {
	out := make([]string, len(counts))
	for k, n := range counts {
		out[k] = valuesInsert(`INSERT INTO events (id, business_id, seq, type, created_at, data, entry_id) VALUES `, eventArgs, n)
	}
	return out
}

// eventStatements are the statements a transaction writes events with,
// prepared on SQLite's writer (see DB.writeStmt) before the transaction
// takes it.
var eventStatements = append([]string{lastSequence}, eventRows...)

// SequenceEvents numbers the committed, unnumbered events of a business
// in id order, after its last number, and returns how many it numbered.
func (d *DB) SequenceEvents(ctx context.Context, businessID string) (int, error) {
	if d.dialect == SQLite {
		return 0, nil // numbered as written
	}
	// Most calls (a reader polling GET /events) find nothing to number: a
	// read says so without taking the writer (SQLite) or the sequence row.
	var first string
	switch err := d.db.QueryRowContext(ctx, firstUnsequenced, businessID).Scan(&first); {
	case err == sql.ErrNoRows:
		return 0, nil
	case err != nil:
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
				WHERE events.business_id = $1 AND events.seq IS NULL AND events.id = n.id`, businessID, last, sequenceBatch)
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

// firstUnsequenced and unsequencedBusinesses find unnumbered events by
// walking their partial index (events_pending) in its order, one row at a
// time: a condition on seq alone was planned, with statistics taken while
// many events were unnumbered (a seeding or an import just written;
// autovacuum off), as a scan of the whole events table, at every GET
// /events and every round of the background sequencer
// (TestUnsequencedFoundByIndex).
const (
	firstUnsequenced      = `SELECT id FROM events WHERE business_id = $1 AND seq IS NULL ORDER BY id LIMIT 1`
	unsequencedBusinesses = `WITH RECURSIVE b(id) AS (
		(SELECT e.business_id FROM events e WHERE e.seq IS NULL ORDER BY e.business_id LIMIT 1)
		UNION ALL
		SELECT (SELECT e.business_id FROM events e WHERE e.seq IS NULL AND e.business_id > b.id ORDER BY e.business_id LIMIT 1)
		FROM b WHERE b.id IS NOT NULL
	)
	SELECT id FROM b WHERE id IS NOT NULL LIMIT $1`
)

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
	if d.dialect == SQLite {
		return nil, nil // numbered as written
	}
	return textColumn(ctx, d.db, unsequencedBusinesses, limit)
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
	return out, err
}

// eventColumns are what readEvents scans.
const eventColumns = `id, business_id, seq, type, created_at, data, entry_id`

// readEvents runs a query of eventColumns of a business's events; an
// event that names an entry keeps the reference (loyalty.RenderEntries renders it).
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

// EntriesByID returns the business's ledger entries with the given ids,
// read in one query (the entries events name, for loyalty.RenderEntries).
func (d *DB) EntriesByID(ctx context.Context, businessID string, ids []int64) ([]loyalty.Transaction, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	from, args := entriesByID(d.dialect, []any{businessID}, ids)
	rows, err := d.db.QueryContext(ctx, `SELECT `+transactionColumns+` FROM `+from+` WHERE t.business_id = $1`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Transaction
	for rows.Next() {
		t, err := scanTransaction(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, t)
	}
	return out, dbError(rows.Err())
}

// EntryCustomers returns the customer of each of the business's ledger
// entries ids, by entry id, read in one query.
func (d *DB) EntryCustomers(ctx context.Context, businessID string, ids []int64) (map[int64]string, error) {
	from, args := entriesByID(d.dialect, []any{businessID}, ids)
	rows, err := d.db.QueryContext(ctx, `SELECT t.id, t.customer_id FROM `+from+` WHERE t.business_id = $1`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := make(map[int64]string, len(ids))
	for rows.Next() {
		var id int64
		var customer string
		if err := rows.Scan(&id, &customer); err != nil {
			return nil, dbError(err)
		}
		out[id] = customer
	}
	return out, dbError(rows.Err())
}
