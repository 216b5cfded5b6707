package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// InsertCode stores an authorization code and records (or renews) the
// owner's consent to its app, in one transaction. Expired codes go too.
func (d *DB) InsertCode(ctx context.Context, c *oauth.Code) error {
	return d.runTx(ctx, func(t *tx) error {
		// Used codes stay as long as tokens issued from them may live, so
		// that a reuse still finds them and revokes those tokens.
		if _, err := t.ExecContext(ctx, `DELETE FROM authorization_codes WHERE expires_at < $1`, c.CreatedAt.Add(-oauth.RefreshTTL).UTC()); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO authorization_codes (id, code_hash, app_id, business_id, owner_id, redirect_uri,
			scope, code_challenge, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			c.ID, c.Hash, c.AppID, c.BusinessID, c.OwnerID, c.RedirectURI, c.Scope, c.CodeChallenge,
			c.CreatedAt.UTC(), c.ExpiresAt.UTC()); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `INSERT INTO app_connections (app_id, business_id, owner_id, scope, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (app_id, business_id) DO UPDATE SET owner_id = excluded.owner_id, scope = excluded.scope,
				updated_at = excluded.updated_at, revoked_at = NULL,
				created_at = CASE WHEN app_connections.revoked_at IS NULL THEN app_connections.created_at ELSE excluded.created_at END`,
			c.AppID, c.BusinessID, c.OwnerID, c.Scope, c.CreatedAt.UTC(), c.CreatedAt.UTC())
		return err
	})
}

// Consented reports whether the owner of a business approved the app on
// the consent page and has not revoked it since.
func (d *DB) Consented(ctx context.Context, appID, businessID string) (bool, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM app_connections
		WHERE app_id = $1 AND business_id = $2 AND revoked_at IS NULL`, appID, businessID).Scan(&n)
	return n > 0, dbError(err)
}

const codeColumns = `id, code_hash, app_id, business_id, owner_id, redirect_uri, scope, code_challenge, created_at, expires_at, used_at`

func scanCode(row scanner) (oauth.Code, error) {
	var c oauth.Code
	var used sql.NullTime
	err := row.Scan(&c.ID, &c.Hash, &c.AppID, &c.BusinessID, &c.OwnerID, &c.RedirectURI, &c.Scope, &c.CodeChallenge,
		&c.CreatedAt, &c.ExpiresAt, &used)
	if err == sql.ErrNoRows {
		return c, loyalty.Errorf(loyalty.ENotFound, "Code not found.")
	}
	c.Used = used.Valid
	return c, dbError(err)
}

// CodeByHash returns a code, used or not.
func (d *DB) CodeByHash(ctx context.Context, hash []byte) (oauth.Code, error) {
	return scanCode(d.db.QueryRowContext(ctx, `SELECT `+codeColumns+` FROM authorization_codes WHERE code_hash = $1`, hash))
}

// SpendCode marks a code used. A code already used comes back with Used
// set, and every token issued from it (its chain) is revoked.
func (d *DB) SpendCode(ctx context.Context, hash []byte, now time.Time) (oauth.Code, error) {
	var out oauth.Code
	err := d.runTx(ctx, func(t *tx) error {
		c, err := scanCode(t.QueryRowContext(ctx, `SELECT `+codeColumns+` FROM authorization_codes WHERE code_hash = $1`, hash))
		if err != nil {
			return err
		}
		// The conditional update decides the race between two exchanges.
		res, err := t.ExecContext(ctx, `UPDATE authorization_codes SET used_at = $1 WHERE id = $2 AND used_at IS NULL`, now.UTC(), c.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 || c.Used {
			c.Used = true
			t.accessChanged()
			if _, err := t.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1 WHERE chain_id = $2 AND revoked_at IS NULL`,
				now.UTC(), c.ID); err != nil {
				return err
			}
			// A replayed code may have leaked: the owner is asked again
			// next time rather than the consent being remembered.
			if _, err := t.ExecContext(ctx, `UPDATE app_connections SET revoked_at = $1, updated_at = $1
				WHERE app_id = $2 AND business_id = $3 AND revoked_at IS NULL`, now.UTC(), c.AppID, c.BusinessID); err != nil {
				return err
			}
		}
		out = c
		return nil
	})
	return out, err
}
