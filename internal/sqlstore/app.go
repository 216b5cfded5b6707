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

func appDest(a *oauth.App) []any {
	return []any{&a.ID, &a.ClientID, &a.Name, &a.Description, &a.RedirectURI, &a.GrantType, &a.API, &a.Status,
		&a.DeveloperID, &a.CreatedAt}
}

// DeveloperApps lists a developer's apps, newest first.
func (d *DB) DeveloperApps(ctx context.Context, developerID string) ([]oauth.App, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+appColumns+` FROM apps a WHERE a.developer_id = $1
		ORDER BY a.created_at DESC, a.id DESC`, developerID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []oauth.App
	for rows.Next() {
		var a oauth.App
		if err := rows.Scan(appDest(&a)...); err != nil {
			return nil, dbError(err)
		}
		out = append(out, a)
	}
	return out, dbError(rows.Err())
}

// DeveloperApp returns one app of a developer.
func (d *DB) DeveloperApp(ctx context.Context, developerID, clientID string) (oauth.App, error) {
	var a oauth.App
	err := d.db.QueryRowContext(ctx, `SELECT `+appColumns+` FROM apps a WHERE a.client_id = $1 AND a.developer_id = $2`,
		clientID, developerID).Scan(appDest(&a)...)
	if err == sql.ErrNoRows {
		return a, loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return a, dbError(err)
}

// SetAppSecret replaces the secret hash of a developer's app.
func (d *DB) SetAppSecret(ctx context.Context, developerID, clientID string, hash []byte) error {
	res, err := d.wdb.ExecContext(ctx, `UPDATE apps SET secret_hash = $1, updated_at = $2 WHERE client_id = $3 AND developer_id = $4`,
		hash, d.now(), clientID, developerID)
	if err != nil {
		return dbError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return nil
}

// ListApps lists every app with its developer's e-mail, pending ones
// first, newest first within a status.
func (d *DB) ListApps(ctx context.Context) ([]oauth.ListedApp, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+appColumns+`, COALESCE(dv.email, '') FROM apps a
		LEFT JOIN developers dv ON dv.id = a.developer_id
		ORDER BY CASE a.status WHEN 'pending' THEN 0 WHEN 'approved' THEN 1 ELSE 2 END, a.created_at DESC, a.id DESC`)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []oauth.ListedApp
	for rows.Next() {
		var l oauth.ListedApp
		if err := rows.Scan(append(appDest(&l.App), &l.DeveloperEmail)...); err != nil {
			return nil, dbError(err)
		}
		out = append(out, l)
	}
	return out, dbError(rows.Err())
}

const appColumns = `a.id, a.client_id, a.name, a.description, a.redirect_uri, a.grant_type, a.api, a.status,
	COALESCE(a.developer_id, ''), a.created_at`
