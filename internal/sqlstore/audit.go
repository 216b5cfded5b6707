package sqlstore

import (
	"context"
	"encoding/json"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The audit log is append-only: this file is its one writer (an INSERT in
// the transaction of the change it records) and nothing in the store
// updates or deletes it; the schema's triggers refuse both.

// insertAudit writes e in the transaction, at its time.
func (t *tx) insertAudit(ctx context.Context, e *loyalty.AuditEntry) error {
	before, err := auditJSON(e.Before)
	if err != nil {
		return err
	}
	after, err := auditJSON(e.After)
	if err != nil {
		return err
	}
	e.CreatedAt = t.now
	return t.QueryRowContext(ctx, `INSERT INTO audit_log (business_id, actor_kind, actor_id, actor_email, actor_role, action,
		target, before_json, after_json, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		e.BusinessID, e.ActorKind, e.ActorID, e.ActorEmail, e.ActorRole, e.Action, e.Target, before, after, t.now).Scan(&e.ID)
}

func auditJSON(m map[string]string) (string, error) {
	if m == nil {
		return "", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// AuditEntries returns up to limit entries of a business with ids below
// before (every entry when before is 0), newest first.
func (d *DB) AuditEntries(ctx context.Context, businessID string, before int64, limit int) ([]loyalty.AuditEntry, error) {
	q := `SELECT id, business_id, actor_kind, actor_id, actor_email, actor_role, action, target, before_json, after_json, created_at
		FROM audit_log WHERE business_id = $1`
	args := []any{businessID}
	if before > 0 {
		q += ` AND id < $2 ORDER BY id DESC LIMIT $3`
		args = append(args, before, limit)
	} else {
		q += ` ORDER BY id DESC LIMIT $2`
		args = append(args, limit)
	}
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.AuditEntry
	for rows.Next() {
		var e loyalty.AuditEntry
		var before, after string
		if err := rows.Scan(&e.ID, &e.BusinessID, &e.ActorKind, &e.ActorID, &e.ActorEmail, &e.ActorRole, &e.Action, &e.Target,
			&before, &after, &e.CreatedAt); err != nil {
			return nil, dbError(err)
		}
		if before != "" {
			if err := json.Unmarshal([]byte(before), &e.Before); err != nil {
				return nil, err
			}
		}
		if after != "" {
			if err := json.Unmarshal([]byte(after), &e.After); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, dbError(rows.Err())
}
