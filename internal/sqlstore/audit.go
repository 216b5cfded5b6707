package sqlstore

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

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

// AuditEntries returns up to limit entries of a business that f keeps,
// newest first.
func (d *DB) AuditEntries(ctx context.Context, businessID string, f loyalty.AuditFilter, limit int) ([]loyalty.AuditEntry, error) {
	q := `SELECT id, business_id, actor_kind, actor_id, actor_email, actor_role, action, target, before_json, after_json, created_at
		FROM audit_log WHERE business_id = $1`
	args := []any{businessID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Before > 0 {
		q += ` AND id < ` + arg(f.Before)
	}
	if kind, id, ok := f.ActorKind(); ok {
		q += ` AND actor_kind = ` + arg(kind) + ` AND actor_id = ` + arg(id)
	}
	if len(f.Actions) > 0 {
		in := make([]string, len(f.Actions))
		for i, a := range f.Actions {
			in[i] = arg(a)
		}
		q += ` AND action IN (` + strings.Join(in, ", ") + `)`
	}
	if !f.From.IsZero() {
		q += ` AND created_at >= ` + arg(f.From.UTC())
	}
	if !f.To.IsZero() {
		q += ` AND created_at < ` + arg(f.To.UTC())
	}
	q += ` ORDER BY id DESC LIMIT ` + arg(limit)
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

// AuditActors lists each person or app with entries in a business's log
// once, by the name of their latest entry, in name order.
func (d *DB) AuditActors(ctx context.Context, businessID string) ([]loyalty.AuditActor, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT a.actor_kind, a.actor_id, a.actor_email FROM audit_log a
		JOIN (SELECT MAX(id) AS id FROM audit_log WHERE business_id = $1 GROUP BY actor_kind, actor_id) latest ON latest.id = a.id
		ORDER BY a.actor_email, a.actor_id`, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.AuditActor
	for rows.Next() {
		var a loyalty.AuditActor
		if err := rows.Scan(&a.Kind, &a.ID, &a.Name); err != nil {
			return nil, dbError(err)
		}
		out = append(out, a)
	}
	return out, dbError(rows.Err())
}
