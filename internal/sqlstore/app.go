package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// ListedApp returns one app with its developer's e-mail.
func (d *DB) ListedApp(ctx context.Context, clientID string) (oauth.ListedApp, error) {
	var l oauth.ListedApp
	err := d.db.QueryRowContext(ctx, `SELECT `+appColumns+`, COALESCE(dv.email, '') FROM apps a
		LEFT JOIN developers dv ON dv.id = a.developer_id WHERE a.client_id = $1`, clientID).
		Scan(append(appDest(&l.App), &l.DeveloperEmail)...)
	if err == sql.ErrNoRows {
		return l, loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return l, dbError(err)
}

// DeleteApp removes an app with its tokens, authorization codes and
// connections, in one transaction; cached token lookups end with it.
func (d *DB) DeleteApp(ctx context.Context, appID string) error {
	return d.runTx(ctx, func(t *tx) error {
		t.accessChanged()
		for _, q := range []string{
			`DELETE FROM oauth_tokens WHERE app_id = $1`,
			`DELETE FROM authorization_codes WHERE app_id = $1`,
			`DELETE FROM app_connections WHERE app_id = $1`,
		} {
			if _, err := t.ExecContext(ctx, q, appID); err != nil {
				return err
			}
		}
		res, err := t.ExecContext(ctx, `DELETE FROM apps WHERE id = $1`, appID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.ENotFound, "App not found.")
		}
		return nil
	})
}
