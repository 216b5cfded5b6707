package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/outbox"
)

// Outbox statuses.
const (
	outboxPending = "pending"
	outboxSending = "sending"
	outboxSent    = "sent"
	outboxFailed  = "failed"
)

// outboxQueue is the outbox as a lease queue: a pending message is due
// at its next attempt, a sending one when its worker's lease ran out.
var outboxQueue = &leaseQueue{table: "outbox", keyCols: []string{"id"}, claimCol: "claim", untilCol: "lease_until",
	stateCol: "status", waiting: outboxPending, held: outboxSending, dueCol: "next_attempt_at"}

// EnqueueMessage writes a message to the outbox in the transaction, due at
// once; the worker delivers it only once the transaction commits.
//
// It is due by the real clock, which the outbox worker runs on, even in a
// sandbox business whose clock is ahead.
func (t *tx) EnqueueMessage(ctx context.Context, m *loyalty.Message) error {
	m.CreatedAt = t.now
	headers := ""
	if len(m.Headers) > 0 {
		b, err := json.Marshal(m.Headers)
		if err != nil {
			return err
		}
		headers = string(b)
	}
	err := t.QueryRowContext(ctx, `INSERT INTO outbox (channel, recipient, subject, body, headers, status, attempts, next_attempt_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		m.Channel, m.To, m.Subject, m.Body, headers, outboxPending, 0, t.wall, t.now).Scan(&m.ID)
	return dbError(err)
}

// dueMessagesSQL lists the due messages ($1 pending, $2 now, $3 the
// limit); see DueMessages.
const dueMessagesSQL = `SELECT id FROM (
		SELECT * FROM (SELECT id, next_attempt_at AS due FROM outbox WHERE status = $1 AND next_attempt_at <= $2
			ORDER BY next_attempt_at LIMIT $3) AS p
		UNION ALL
		SELECT * FROM (SELECT id, lease_until AS due FROM outbox WHERE status = '` + outboxSending + `' AND lease_until <= $2
			ORDER BY lease_until LIMIT $3) AS s
	) AS d ORDER BY due, id LIMIT $3`

// DueMessages returns the ids of up to limit messages due at now, the
// longest due first: pending ones whose next attempt has come, and
// claimed ones whose lease ran out. Each half is a range of an index
// read in its order (outbox_due, outbox_leased) whatever the planner's
// statistics say; one
// condition with OR, ordered by id, was read on a table never analysed
// by walking every message ever sent in id order.
func (d *DB) DueMessages(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	return column[int64](ctx, d.db, dueMessagesSQL, outboxPending, now.UTC(), limit)
}

// ClaimMessage leases a due message. The condition in the UPDATE decides
// between workers racing for the same message: only one sees a row.
func (d *DB) ClaimMessage(ctx context.Context, id int64, claim string, now, leaseUntil time.Time) (outbox.Message, bool, error) {
	m := outbox.Message{ID: id}
	var headers string
	err := outboxQueue.claim([]any{id}, claim, now, leaseUntil).setSQL("attempts", "attempts + 1").
		returns(`channel, recipient, subject, body, headers, attempts, created_at`).queryRow(ctx, d.wdb).
		Scan(&m.Channel, &m.To, &m.Subject, &m.Body, &headers, &m.Attempts, &m.CreatedAt)
	if err == sql.ErrNoRows {
		return m, false, nil
	}
	if err != nil {
		return m, false, dbError(err)
	}
	if headers != "" {
		if err := json.Unmarshal([]byte(headers), &m.Headers); err != nil {
			return m, false, fmt.Errorf("sqlstore: outbox message %d: headers: %w", id, err)
		}
	}
	return m, true, nil
}

// MessageSent marks a message sent, if claim still holds it.
func (d *DB) MessageSent(ctx context.Context, id int64, claim string, at time.Time) error {
	_, err := outboxQueue.finish([]any{id}, claim, outboxSent).set("sent_at", at).set("last_error", "").exec(ctx, d.wdb)
	return dbError(err)
}

// MessageFailed records a failed attempt: pending again at next, or
// failed for good when next is zero.
func (d *DB) MessageFailed(ctx context.Context, id int64, claim, reason string, next time.Time) error {
	status, due := outboxPending, next.UTC()
	if next.IsZero() {
		status, due = outboxFailed, d.now()
	}
	_, err := outboxQueue.finish([]any{id}, claim, status).set("next_attempt_at", due).set("last_error", reason).exec(ctx, d.wdb)
	return dbError(err)
}

// OutboxCounts returns how many messages the outbox holds in each status.
func (d *DB) OutboxCounts(ctx context.Context) (map[string]int, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT status, COUNT(*) FROM outbox GROUP BY status`)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, dbError(err)
		}
		out[s] = n
	}
	return out, dbError(rows.Err())
}
