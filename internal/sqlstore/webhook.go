package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// webhookColumns are an endpoint's columns, as scanWebhook reads them.
const webhookColumns = `w.id, w.business_id, w.url, w.description, w.event_types, w.enabled, w.disabled_reason,
	w.secret, w.previous_secret, w.previous_secret_until, w.failing_since, w.created_at, w.updated_at`

// scanWebhook reads an endpoint and opens its secrets.
func scanWebhook(row interface{ Scan(...any) error }, c *webhookCipher) (loyalty.WebhookEndpoint, error) {
	var w loyalty.WebhookEndpoint
	var types, secret, previous string
	var until, failing sql.NullTime
	err := row.Scan(&w.ID, &w.BusinessID, &w.URL, &w.Description, &types, &w.Enabled, &w.DisabledReason,
		&secret, &previous, &until, &failing, &w.CreatedAt, &w.UpdatedAt)
	if err != nil {
		return w, err
	}
	w.EventTypes = splitTypes(types)
	w.PreviousSecretUntil, w.FailingSince = timeOrZero(until), timeOrZero(failing)
	w.CreatedAt, w.UpdatedAt = w.CreatedAt.UTC(), w.UpdatedAt.UTC()
	if w.Secret, err = c.open(w.ID, secret); err != nil {
		return w, err
	}
	w.PreviousSecret, err = c.open(w.ID, previous)
	return w, err
}

// splitTypes reads the event_types column: a comma-separated list.
func splitTypes(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

func timeOrZero(t sql.NullTime) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// InsertWebhook stores a new endpoint, its secrets sealed.
func (d *DB) InsertWebhook(ctx context.Context, w *loyalty.WebhookEndpoint) error {
	c, err := d.webhookCipher(ctx)
	if err != nil {
		return err
	}
	// A transaction of its own, so a view's audit entry commits with it.
	return d.runTx(ctx, func(t *tx) error {
		_, err := t.ExecContext(ctx, `INSERT INTO webhook_endpoints (id, business_id, url, description, event_types, enabled,
			disabled_reason, secret, previous_secret, previous_secret_until, failing_since, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			w.ID, w.BusinessID, w.URL, w.Description, strings.Join(w.EventTypes, ","), w.Enabled, w.DisabledReason,
			c.seal(w.ID, w.Secret), c.seal(w.ID, w.PreviousSecret), nullTime(w.PreviousSecretUntil), nullTime(w.FailingSince),
			w.CreatedAt.UTC(), w.UpdatedAt.UTC())
		return err
	})
}

// Webhook returns an endpoint of the business.
func (d *DB) Webhook(ctx context.Context, businessID, id string) (loyalty.WebhookEndpoint, error) {
	c, err := d.webhookCipher(ctx)
	if err != nil {
		return loyalty.WebhookEndpoint{}, err
	}
	w, err := scanWebhook(d.db.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints w
		WHERE w.business_id = $1 AND w.id = $2`, businessID, id), c)
	return w, webhookError(err)
}

// webhookError names what was not found.
func webhookError(err error) error {
	if err == sql.ErrNoRows {
		return loyalty.Errorf(loyalty.ENotFound, "Webhook endpoint not found.")
	}
	return dbError(err)
}

// Webhooks pages the endpoints of a business, oldest first.
func (d *DB) Webhooks(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.WebhookEndpoint, int, error) {
	c, err := d.webhookCipher(ctx)
	if err != nil {
		return nil, 0, err
	}
	from, args, err := listWhere([]string{"w.business_id = $1"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.WebhookEndpoint
	total, err := d.listPage(ctx, webhookColumns, `FROM webhook_endpoints w`+from, `w.id`, args, q, func(rows *sql.Rows) error {
		w, err := scanWebhook(rows, c)
		out = append(out, w)
		return err
	})
	return out, total, err
}

// ChangeWebhook reads, changes and writes an endpoint in one transaction.
func (d *DB) ChangeWebhook(ctx context.Context, businessID, id string,
	change func(w *loyalty.WebhookEndpoint, now time.Time) error) (loyalty.WebhookEndpoint, error) {
	c, err := d.webhookCipher(ctx)
	if err != nil {
		return loyalty.WebhookEndpoint{}, err
	}
	var out loyalty.WebhookEndpoint
	err = d.runTx(ctx, func(t *tx) error {
		// The UPDATE takes the row first, so two changes of one endpoint
		// run one after the other and neither loses the other's fields.
		if _, err := t.ExecContext(ctx, `UPDATE webhook_endpoints SET updated_at = updated_at WHERE business_id = $1 AND id = $2`,
			businessID, id); err != nil {
			return err
		}
		w, err := scanWebhook(t.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints w
			WHERE w.business_id = $1 AND w.id = $2`, businessID, id), c)
		if err != nil {
			return webhookError(err)
		}
		if err := change(&w, t.now); err != nil {
			return err
		}
		out = w
		_, err = t.ExecContext(ctx, `UPDATE webhook_endpoints SET url = $3, description = $4, event_types = $5, enabled = $6,
			disabled_reason = $7, secret = $8, previous_secret = $9, previous_secret_until = $10, failing_since = $11, updated_at = $12
			WHERE business_id = $1 AND id = $2`, businessID, id, w.URL, w.Description, strings.Join(w.EventTypes, ","), w.Enabled,
			w.DisabledReason, c.seal(w.ID, w.Secret), c.seal(w.ID, w.PreviousSecret), nullTime(w.PreviousSecretUntil),
			nullTime(w.FailingSince), w.UpdatedAt.UTC())
		return err
	})
	return out, err
}

// DeleteWebhook removes an endpoint; its deliveries go with it.
func (d *DB) DeleteWebhook(ctx context.Context, businessID, id string) error {
	// A transaction of its own, so a view's audit entry commits with it.
	err := d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE business_id = $1 AND id = $2`, businessID, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return webhookError(orNoRows(err))
		}
		return nil
	})
	return err
}

// orNoRows is err, or sql.ErrNoRows when there is none.
func orNoRows(err error) error {
	if err == nil {
		return sql.ErrNoRows
	}
	return err
}
