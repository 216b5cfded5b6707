package sqlstore

import (
	"context"
	"database/sql"
	"time"

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

// loginTable is the table of the accounts of a sign-in kind.
func loginTable(kind string) string {
	switch kind {
	case "user":
		return "users"
	case oauth.KindDeveloper:
		return "developers"
	case oauth.KindSupport:
		return "support_staff"
	case loyalty.AccountStaff:
		return "staff"
	default:
		return "owners"
	}
}

// InsertAccount stores a developer or support account.
func (d *DB) InsertAccount(ctx context.Context, l oauth.Login, email, name string, now time.Time) error {
	var err error
	if l.Kind == oauth.KindDeveloper {
		_, err = d.wdb.ExecContext(ctx, `INSERT INTO developers (id, email, name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)`,
			l.ID, email, name, l.Hash, now.UTC())
	} else {
		_, err = d.wdb.ExecContext(ctx, `INSERT INTO support_staff (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)`,
			l.ID, email, l.Hash, now.UTC())
	}
	return dbError(err)
}

// AccountLogin finds a developer, support or staff account by e-mail; a
// staff member's login carries their business.
func (d *DB) AccountLogin(ctx context.Context, kind, email string) (oauth.Login, error) {
	business := "''"
	if kind == loyalty.AccountStaff {
		business = "business_id"
	}
	return scanLogin(d.db.QueryRowContext(ctx, `SELECT id, `+business+`, password_hash, locked_until FROM `+loginTable(kind)+` WHERE email = $1`, email), kind)
}
