package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/webhooks"
)

// deliveryColumns are a delivery's columns, as scanDelivery reads them.
const deliveryColumns = `d.endpoint_id, d.event_id, d.business_id, d.seq, d.event_type, d.body, d.state, d.attempts,
	d.next_attempt_at, d.last_status, d.last_latency_ms, d.last_response, d.last_error, d.last_attempt_at, d.created_at`

func scanDelivery(row interface{ Scan(...any) error }) (loyalty.WebhookDelivery, error) {
	var x loyalty.WebhookDelivery
	var body string
	var next, last sql.NullTime
	var status, latency sql.NullInt64
	var response, reason sql.NullString
	err := row.Scan(&x.EndpointID, &x.EventID, &x.BusinessID, &x.Seq, &x.EventType, &body, &x.State, &x.Attempts,
		&next, &status, &latency, &response, &reason, &last, &x.CreatedAt)
	x.Body, x.NextAttemptAt, x.LastAttemptAt, x.CreatedAt = []byte(body), timeOrZero(next), timeOrZero(last), x.CreatedAt.UTC()
	x.LastStatus, x.LastLatency = int(status.Int64), time.Duration(latency.Int64)*time.Millisecond
	x.LastResponse, x.LastError = response.String, reason.String
	if x.State != loyalty.DeliveryPending && x.State != loyalty.DeliverySending {
		x.NextAttemptAt = time.Time{}
	}
	return x, err
}

// WebhookDeliveries pages an endpoint's deliveries, newest event first
// (event ids are time-ordered).
func (d *DB) WebhookDeliveries(ctx context.Context, businessID, endpointID string, q loyalty.ListQuery) ([]loyalty.WebhookDelivery, int, error) {
	from, args, err := listWhere([]string{"d.business_id = $1", "d.endpoint_id = $2"}, []any{businessID, endpointID}, q,
		map[string]string{"state": "d.state"})
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.WebhookDelivery
	total, err := d.listPage(ctx, deliveryColumns, `FROM webhook_deliveries d`+from, `d.event_id DESC`, args, q, func(rows *sql.Rows) error {
		x, err := scanDelivery(rows)
		out = append(out, x)
		return err
	})
	return out, total, err
}

// RequeueDelivery makes a delivery due now unless a worker holds it.
func (d *DB) RequeueDelivery(ctx context.Context, businessID, endpointID, eventID string) (loyalty.WebhookDelivery, error) {
	var out loyalty.WebhookDelivery
	err := d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `UPDATE webhook_deliveries SET state = $4, next_attempt_at = $5
			WHERE business_id = $1 AND endpoint_id = $2 AND event_id = $3 AND state <> $6`,
			businessID, endpointID, eventID, loyalty.DeliveryPending, t.now, loyalty.DeliverySending)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		out, err = scanDelivery(t.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
			WHERE d.business_id = $1 AND d.endpoint_id = $2 AND d.event_id = $3`, businessID, endpointID, eventID))
		switch {
		case err == sql.ErrNoRows:
			return loyalty.Errorf(loyalty.ENotFound, "This endpoint has no delivery of that event.")
		case err == nil && n == 0:
			return loyalty.Errorf(loyalty.EConflict, "The event is being delivered right now; look again in a moment.")
		}
		return err
	})
	return out, err
}

// FeedEnd returns the last sequence number of a business's events that
// is committed (0 when none is).
func (d *DB) FeedEnd(ctx context.Context, businessID string) (int64, error) {
	var last int64
	err := d.db.QueryRowContext(ctx, `SELECT `+d.lastSeqSQL()+` FROM event_sequences s WHERE s.business_id = $1`, businessID).Scan(&last)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return last, dbError(err)
}

// EnabledWebhooks returns a business's enabled endpoints.
func (d *DB) EnabledWebhooks(ctx context.Context, businessID string) ([]loyalty.WebhookEndpoint, error) {
	c, err := d.webhookCipher(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints w
		WHERE w.business_id = $1 AND w.enabled ORDER BY w.id`, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.WebhookEndpoint
	for rows.Next() {
		w, err := scanWebhook(rows, c)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, w)
	}
	return out, dbError(rows.Err())
}

// InsertDeliveries writes deliveries, due at once, in one transaction; a
// delivery of an event to an endpoint that exists already is left alone,
// so a fan-out that runs twice queues each once. It returns how many it
// wrote.
func (d *DB) InsertDeliveries(ctx context.Context, list []loyalty.WebhookDelivery) (int, error) {
	if len(list) == 0 {
		return 0, nil
	}
	total := 0
	err := d.runTx(ctx, func(t *tx) error {
		total = 0
		for _, x := range list {
			res, err := t.ExecContext(ctx, `INSERT INTO webhook_deliveries (endpoint_id, event_id, business_id, seq, event_type,
				body, state, attempts, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $8)
				ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
				x.EndpointID, x.EventID, x.BusinessID, x.Seq, x.EventType, string(x.Body), loyalty.DeliveryPending, t.now)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			total += int(n)
		}
		return nil
	})
	return total, err
}

// deliveryQueue is the webhook deliveries as a lease queue. A delivery's
// next attempt is also its lease: a pending delivery is due at its next
// attempt, a sending one when its worker's lease (the same column) ran
// out.
var deliveryQueue = &leaseQueue{table: "webhook_deliveries", keyCols: []string{"endpoint_id", "event_id"}, claimCol: "claim",
	untilCol: "next_attempt_at", stateCol: "state", waiting: loyalty.DeliveryPending, held: loyalty.DeliverySending,
	dueCol: "next_attempt_at"}

// DueDeliveries lists up to limit deliveries of enabled endpoints due at
// now: pending ones whose attempt has come, and claimed ones whose lease
// ran out (their worker died).
func (d *DB) DueDeliveries(ctx context.Context, now time.Time, limit int) ([]webhooks.Key, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT d.endpoint_id, d.event_id FROM webhook_deliveries d
		JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled
		WHERE d.state IN ($1, $2) AND d.next_attempt_at <= $3 ORDER BY d.next_attempt_at LIMIT $4`,
		loyalty.DeliveryPending, loyalty.DeliverySending, now.UTC(), limit)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []webhooks.Key
	for rows.Next() {
		var k webhooks.Key
		if err := rows.Scan(&k.EndpointID, &k.EventID); err != nil {
			return nil, dbError(err)
		}
		out = append(out, k)
	}
	return out, dbError(rows.Err())
}

// ClaimDelivery leases a due delivery of an enabled endpoint to claim
// until leaseUntil, counting the attempt, and returns it with its
// endpoint. The UPDATE's condition decides between racing workers.
func (d *DB) ClaimDelivery(ctx context.Context, k webhooks.Key, claim string, now, leaseUntil time.Time) (loyalty.WebhookDelivery, loyalty.WebhookEndpoint, bool, error) {
	c, err := d.webhookCipher(ctx)
	if err != nil {
		return loyalty.WebhookDelivery{}, loyalty.WebhookEndpoint{}, false, err
	}
	ok, err := deliveryQueue.claim([]any{k.EndpointID, k.EventID}, claim, now, leaseUntil).setSQL("attempts", "attempts + 1").
		where("EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = ? AND w.enabled)", k.EndpointID).exec(ctx, d.wdb)
	if err != nil || !ok {
		return loyalty.WebhookDelivery{}, loyalty.WebhookEndpoint{}, false, dbError(err)
	}
	x, err := scanDelivery(d.wdb.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
		WHERE d.endpoint_id = $1 AND d.event_id = $2`, k.EndpointID, k.EventID))
	if err != nil {
		return x, loyalty.WebhookEndpoint{}, false, dbError(err)
	}
	w, err := scanWebhook(d.wdb.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints w WHERE w.id = $1`, k.EndpointID), c)
	return x, w, err == nil, dbError(err)
}

// FinishDelivery records an attempt's outcome if claim still holds the
// delivery, and the endpoint's failing streak: ended by a success, begun
// by a failure. It returns since when the endpoint has been failing (zero
// after a success, or when the claim was lost).
func (d *DB) FinishDelivery(ctx context.Context, a webhooks.Attempt) (time.Time, error) {
	var since time.Time
	err := d.runTx(ctx, func(t *tx) error {
		var status, latency sql.NullInt64
		if a.Status != 0 {
			status = sql.NullInt64{Int64: int64(a.Status), Valid: true}
		}
		latency = sql.NullInt64{Int64: a.Latency.Milliseconds(), Valid: true}
		// The lease's column is the next attempt's: the outcome sets it.
		held, err := deliveryQueue.finish([]any{a.Key.EndpointID, a.Key.EventID}, a.Claim, a.Outcome).
			set("next_attempt_at", nullTime(a.Next)).setSQL("claim", "NULL").set("last_status", status).set("last_latency_ms", latency).
			set("last_response", sql.NullString{String: a.Response, Valid: a.Status != 0}).
			set("last_error", sql.NullString{String: a.Error, Valid: a.Error != ""}).set("last_attempt_at", a.At).exec(ctx, t)
		if err != nil || !held {
			return err // lost to another worker after the lease ran out: it records its own
		}
		if a.Outcome == loyalty.DeliveryDelivered {
			_, err := t.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`,
				a.Key.EndpointID)
			return err
		}
		if _, err := t.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL`,
			a.Key.EndpointID, a.At.UTC()); err != nil {
			return err
		}
		var s sql.NullTime
		err = t.QueryRowContext(ctx, `SELECT failing_since FROM webhook_endpoints WHERE id = $1`, a.Key.EndpointID).Scan(&s)
		since = timeOrZero(s)
		return err
	})
	return since, err
}

// DisableWebhook disables an enabled endpoint for reason, fails its
// pending deliveries, and queues the e-mail message builds for the
// business's owner, in one transaction; false when it was not enabled.
func (d *DB) DisableWebhook(ctx context.Context, endpointID, reason string,
	message func(ownerEmail, businessName string, w loyalty.WebhookEndpoint) loyalty.Message) (bool, error) {
	var done bool
	err := d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = $2, updated_at = $3
			WHERE id = $1 AND enabled`, endpointID, reason, t.now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		if _, err := t.ExecContext(ctx, `UPDATE webhook_deliveries SET state = $2, next_attempt_at = NULL
			WHERE endpoint_id = $1 AND state = $3`, endpointID, loyalty.DeliveryFailed, loyalty.DeliveryPending); err != nil {
			return err
		}
		var w loyalty.WebhookEndpoint
		var email, name string
		err = t.QueryRowContext(ctx, `SELECT w.id, w.url, o.email, b.name FROM webhook_endpoints w
			JOIN businesses b ON b.id = w.business_id JOIN owners o ON o.business_id = b.id
			WHERE w.id = $1 ORDER BY o.created_at LIMIT 1`, endpointID).Scan(&w.ID, &w.URL, &email, &name)
		if err != nil {
			return err
		}
		m := message(email, name, w)
		done = true
		return t.EnqueueMessage(ctx, &m)
	})
	return done, err
}

// PruneDeliveries removes the deliveries queued before t that no worker
// holds, a bounded batch per statement, and returns how many it removed.
func (d *DB) PruneDeliveries(ctx context.Context, before time.Time) (int, error) {
	const batch = 5000
	total := 0
	for {
		res, err := d.wdb.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE (endpoint_id, event_id) IN (
			SELECT endpoint_id, event_id FROM webhook_deliveries WHERE created_at < $1 AND state <> $2 ORDER BY created_at LIMIT $3)`,
			before.UTC(), loyalty.DeliverySending, batch)
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
