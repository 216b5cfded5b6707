package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

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

// InsertSession stores a session and drops the expired ones.
func (d *DB) InsertSession(ctx context.Context, hash []byte, s oauth.Session) error {
	return d.runTx(ctx, func(t *tx) error {
		if _, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE expires_at < $1`, t.now.UTC()); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `INSERT INTO web_sessions (id_hash, kind, subject_id, business_id, email, created_at,
			expires_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, hash, s.Kind, s.SubjectID, nullString(s.BusinessID),
			s.Email, s.CreatedAt.UTC(), s.ExpiresAt.UTC(), s.LastSeen.UTC())
		return err
	})
}

// SessionByHash returns the session stored under hash.
func (d *DB) SessionByHash(ctx context.Context, hash []byte) (oauth.Session, error) {
	var s oauth.Session
	var seen sql.NullTime
	err := d.row(ctx, `SELECT kind, subject_id, COALESCE(business_id, ''), email, created_at, expires_at, last_seen_at
		FROM web_sessions WHERE id_hash = $1`, hash).Scan(&s.Kind, &s.SubjectID, &s.BusinessID, &s.Email, &s.CreatedAt, &s.ExpiresAt, &seen)
	if err == sql.ErrNoRows {
		return s, loyalty.Errorf(loyalty.ENotFound, "Session not found.")
	}
	s.LastSeen = s.CreatedAt
	if seen.Valid {
		s.LastSeen = seen.Time
	}
	return s, dbError(err)
}

// TouchSession records that a session was used at now. It changes no
// credential, so the token lookup cache is left as it is.
func (d *DB) TouchSession(ctx context.Context, hash []byte, now time.Time) error {
	_, err := d.wdb.ExecContext(ctx, `UPDATE web_sessions SET last_seen_at = $1 WHERE id_hash = $2`, now.UTC(), hash)
	return dbError(err)
}

// DeleteSession removes a session.
func (d *DB) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := d.wdb.ExecContext(ctx, `DELETE FROM web_sessions WHERE id_hash = $1`, hash)
	return dbError(err)
}

const appColumns = `a.id, a.client_id, a.name, a.description, a.redirect_uri, a.grant_type, a.api, a.status,
	COALESCE(a.developer_id, ''), a.created_at`

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

// ApplicationKey returns the live Application Key of a business.
func (d *DB) ApplicationKey(ctx context.Context, businessID string) (string, error) {
	var key string
	err := d.db.QueryRowContext(ctx, `SELECT key FROM application_keys WHERE business_id = $1 AND revoked_at IS NULL
		ORDER BY created_at DESC LIMIT 1`, businessID).Scan(&key)
	if err == sql.ErrNoRows {
		return "", loyalty.Errorf(loyalty.ENotFound, "The business has no Application Key.")
	}
	return key, dbError(err)
}

// Connections lists the apps that hold live tokens for a business (issued
// for its owner, or under its Application Key) or that its owner let in.
func (d *DB) Connections(ctx context.Context, businessID string, now time.Time) ([]oauth.Connection, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+appColumns+`, MIN(x.since), SUM(x.tokens), MAX(x.consent) FROM apps a
		JOIN (SELECT app_id, created_at AS since, 0 AS tokens, 1 AS consent FROM app_connections
			WHERE business_id = $1 AND revoked_at IS NULL
		UNION ALL
		SELECT app_id, created_at, 1, 0 FROM oauth_tokens
			WHERE (business_id = $2 OR tenant_id = $3) AND revoked_at IS NULL AND refresh_expires_at > $4) x ON x.app_id = a.id
		GROUP BY a.id, a.client_id, a.name, a.description, a.redirect_uri, a.grant_type, a.api, a.status, a.developer_id, a.created_at
		ORDER BY MIN(x.since), a.id`, businessID, businessID, businessID, now.UTC())
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []oauth.Connection
	for rows.Next() {
		var c oauth.Connection
		var since looseTime
		var consent int
		if err := rows.Scan(append(appDest(&c.App), &since, &c.Tokens, &consent)...); err != nil {
			return nil, dbError(err)
		}
		c.Since, c.Consented = since.Time, consent == 1
		out = append(out, c)
	}
	return out, dbError(rows.Err())
}

// RevokeConnection withdraws an app's consent, revokes its tokens for the
// business and voids its unused codes, in one transaction.
func (d *DB) RevokeConnection(ctx context.Context, businessID, appID string, now time.Time) error {
	return d.runTx(ctx, func(t *tx) error {
		t.accessChanged()
		if _, err := t.ExecContext(ctx, `UPDATE app_connections SET revoked_at = $1, updated_at = $2
			WHERE app_id = $3 AND business_id = $4 AND revoked_at IS NULL`, now.UTC(), now.UTC(), appID, businessID); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1
			WHERE app_id = $2 AND (business_id = $3 OR tenant_id = $4) AND revoked_at IS NULL`, now.UTC(), appID, businessID, businessID); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `UPDATE authorization_codes SET used_at = $1
			WHERE app_id = $2 AND business_id = $3 AND used_at IS NULL`, now.UTC(), appID, businessID)
		return err
	})
}

// looseTime scans a time that SQLite returns as text where a column's
// declared type is lost (an aggregate over a UNION).
type looseTime struct{ time.Time }

// Scan implements sql.Scanner.
func (l *looseTime) Scan(v any) error {
	switch x := v.(type) {
	case time.Time:
		l.Time = x
		return nil
	case []byte:
		v = string(x)
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("sqlstore: cannot scan %T as a time", v)
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			l.Time = t
			return nil
		}
	}
	return fmt.Errorf("sqlstore: unreadable time %q", s)
}
