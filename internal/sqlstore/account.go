package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// SupportAccounts lists the support accounts, oldest first.
func (d *DB) SupportAccounts(ctx context.Context) ([]oauth.SupportAccount, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, email, locked_until, created_at FROM support_staff ORDER BY created_at, id`)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []oauth.SupportAccount
	for rows.Next() {
		var a oauth.SupportAccount
		var locked sql.NullTime
		if err := rows.Scan(&a.ID, &a.Email, &locked, &a.CreatedAt); err != nil {
			return nil, dbError(err)
		}
		a.LockedUntil = locked.Time
		out = append(out, a)
	}
	return out, dbError(rows.Err())
}

// DeleteSupport removes a support account and its sessions, in one
// transaction. Support sessions are no part of a token lookup, so the
// token cache is left as it is.
func (d *DB) DeleteSupport(ctx context.Context, id string) error {
	return d.runTx(ctx, func(t *tx) error {
		if _, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE kind = 'support' AND subject_id = $1`, id); err != nil {
			return err
		}
		res, err := t.ExecContext(ctx, `DELETE FROM support_staff WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.ENotFound, "Support account not found.")
		}
		return nil
	})
}
