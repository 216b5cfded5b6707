package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// InsertApp registers an app.
func (d *DB) InsertApp(ctx context.Context, a *oauth.App) error {
	_, err := d.wdb.ExecContext(ctx, `INSERT INTO apps (id, client_id, secret_hash, name, description, redirect_uri, grant_type, api,
		status, created_at, updated_at, developer_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		a.ID, a.ClientID, a.SecretHash, a.Name, a.Description, a.RedirectURI, a.GrantType, a.API, a.Status, a.CreatedAt.UTC(), a.CreatedAt.UTC(),
		nullString(a.DeveloperID))
	return dbError(err)
}

// AppByClientID finds an app by its public client id.
func (d *DB) AppByClientID(ctx context.Context, clientID string) (oauth.App, error) {
	return d.appWhere(ctx, "client_id", clientID)
}

// AppByID implements oauth.Store.
func (d *DB) AppByID(ctx context.Context, id string) (oauth.App, error) {
	return d.appWhere(ctx, "id", id)
}

// appWhere reads the app whose column col (client_id or id) is v.
func (d *DB) appWhere(ctx context.Context, col, v string) (oauth.App, error) {
	var a oauth.App
	err := d.db.QueryRowContext(ctx, `SELECT id, client_id, secret_hash, name, description, redirect_uri, grant_type, api, status, created_at
		FROM apps WHERE `+col+` = $1`, v).Scan(&a.ID, &a.ClientID, &a.SecretHash, &a.Name, &a.Description,
		&a.RedirectURI, &a.GrantType, &a.API, &a.Status, &a.CreatedAt)
	if err == sql.ErrNoRows {
		return a, loyalty.Errorf(loyalty.ENotFound, "App not found.")
	}
	return a, dbError(err)
}

// SetAppStatus approves or suspends an app.
func (d *DB) SetAppStatus(ctx context.Context, clientID, status string) error {
	return d.runTx(ctx, func(t *tx) error {
		t.accessChanged()
		res, err := t.ExecContext(ctx, `UPDATE apps SET status = $1, updated_at = $2 WHERE client_id = $3`, status, t.now, clientID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.ENotFound, "App not found.")
		}
		return nil
	})
}

func scanLogin(row scanner, kind string) (oauth.Login, error) {
	l := oauth.Login{Kind: kind}
	var hash sql.NullString
	var locked sql.NullTime
	err := row.Scan(&l.ID, &l.BusinessID, &hash, &locked)
	if err == sql.ErrNoRows {
		return l, loyalty.Errorf(loyalty.ENotFound, "Account not found.")
	}
	l.Hash, l.LockedUntil = hash.String, locked.Time
	return l, dbError(err)
}

// OwnerLogin finds a business owner by e-mail.
func (d *DB) OwnerLogin(ctx context.Context, email string) (oauth.Login, error) {
	return scanLogin(d.db.QueryRowContext(ctx, `SELECT id, business_id, password_hash, locked_until FROM owners WHERE email = $1`, email), "owner")
}

// UserLogin finds a person by e-mail or phone who is an active customer of
// one of the given businesses.
func (d *DB) UserLogin(ctx context.Context, emailOrPhone string, businessIDs []string) (oauth.Login, error) {
	if len(businessIDs) == 0 {
		return oauth.Login{}, loyalty.Errorf(loyalty.ENotFound, "Account not found.")
	}
	col := "email"
	if strings.HasPrefix(emailOrPhone, "+") {
		col = "phone"
	}
	return d.userLogin(ctx, "u."+col, emailOrPhone, businessIDs)
}

// UserLoginByID finds a person by id who is a customer of one of
// businessIDs.
func (d *DB) UserLoginByID(ctx context.Context, id string, businessIDs []string) (oauth.Login, error) {
	if len(businessIDs) == 0 {
		return oauth.Login{}, loyalty.Errorf(loyalty.ENotFound, "Account not found.")
	}
	return d.userLogin(ctx, "u.id", id, businessIDs)
}

// userLogin finds the person whose col is value among the customers of
// businessIDs.
func (d *DB) userLogin(ctx context.Context, col, value string, businessIDs []string) (oauth.Login, error) {
	args := []any{value}
	marks := make([]string, len(businessIDs))
	for i, id := range businessIDs {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	return scanLogin(d.db.QueryRowContext(ctx, `SELECT u.id, '', u.pin_hash, u.locked_until FROM users u
		WHERE `+col+` = $1 AND EXISTS (SELECT 1 FROM customers c WHERE c.user_id = u.id AND c.deleted_at IS NULL
		AND c.business_id IN (`+strings.Join(marks, ", ")+`))`, args...), "user")
}

// RecordLogin counts a failed sign-in or clears the count after a good
// one, as oauth.Lockout.After decides over the count read. The read holds
// the account's row until the write commits (SQLite's single writer runs
// one transaction at a time; PostgreSQL locks the row), so concurrent
// failures all count.
func (d *DB) RecordLogin(ctx context.Context, kind, id string, ok bool, now time.Time) error {
	t, err := d.wdb.BeginTx(ctx, nil)
	if err != nil {
		return dbError(err)
	}
	defer t.Rollback()
	table, forUpdate := loginTable(kind), ""
	if d.dialect == Postgres {
		forUpdate = " FOR UPDATE"
	}
	var cur oauth.Lockout
	var locked sql.NullTime
	err = t.QueryRowContext(ctx, `SELECT failed_logins, locked_until FROM `+table+` WHERE id = $1`+forUpdate, id).Scan(&cur.Failures, &locked)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return dbError(err)
	}
	cur.LockedUntil = locked.Time
	if next := cur.After(ok, now); !next.Equal(cur) {
		if _, err := t.ExecContext(ctx, `UPDATE `+table+` SET failed_logins = $1, locked_until = $2 WHERE id = $3`,
			next.Failures, nullTime(next.LockedUntil), id); err != nil {
			return dbError(err)
		}
	}
	return dbError(t.Commit())
}

// InsertToken stores an issued token pair.
func (d *DB) InsertToken(ctx context.Context, t *oauth.Token) error {
	_, err := d.wdb.ExecContext(ctx, `INSERT INTO oauth_tokens (id, chain_id, app_id, tenant_id, business_id, subject_kind, subject_id,
		scope, access_hash, refresh_hash, access_expires_at, refresh_expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		t.ID, t.ChainID, t.AppID, t.TenantID, nullString(t.BusinessID), t.SubjectKind, t.SubjectID, t.Scope,
		t.AccessHash, t.RefreshHash, t.AccessExpiresAt.UTC(), t.RefreshExpiresAt.UTC(), t.CreatedAt.UTC())
	return dbError(err)
}

const tokenColumns = `t.id, t.chain_id, t.app_id, a.status, t.tenant_id, COALESCE(t.business_id, ''), t.subject_kind, t.subject_id,
	t.scope, t.access_expires_at, t.refresh_expires_at, t.revoked_at, t.refresh_used_at, t.created_at`

func tokenDest(t *oauth.Token, revoked, used *sql.NullTime) []any {
	return []any{&t.ID, &t.ChainID, &t.AppID, &t.AppStatus, &t.TenantID, &t.BusinessID, &t.SubjectKind, &t.SubjectID,
		&t.Scope, &t.AccessExpiresAt, &t.RefreshExpiresAt, revoked, used, &t.CreatedAt}
}

func scanToken(row scanner) (oauth.Token, error) {
	var t oauth.Token
	var revoked, used sql.NullTime
	err := row.Scan(tokenDest(&t, &revoked, &used)...)
	if err == sql.ErrNoRows {
		return t, loyalty.Errorf(loyalty.ENotFound, "Token not found.")
	}
	t.Revoked, t.Spent = revoked.Valid, used.Valid
	return t, dbError(err)
}

// Access finds a token by the hash of its access token.
func (d *DB) Access(ctx context.Context, accessHash []byte) (oauth.Token, error) {
	return d.AccessForKey(ctx, accessHash, "")
}

// AccessForKey finds a token by the hash of its access token and, in the
// same query, resolves the Application Key sent with it into t.Key (left
// zero when the key is unknown or rotated): one round trip per request.
func (d *DB) AccessForKey(ctx context.Context, accessHash []byte, appKey string) (oauth.Token, error) {
	t, _, err := d.cachedAccess(ctx, accessHash, appKey, false)
	return t, err
}

// AccessWithBusiness is AccessForKey that also returns the token's business
// with what the ledger needs of it (as BusinessWithRules reads it; zero
// when the token names none), still in one query: a reward then costs one
// round trip before its write.
func (d *DB) AccessWithBusiness(ctx context.Context, accessHash []byte, appKey string) (oauth.Token, loyalty.Business, error) {
	return d.cachedAccess(ctx, accessHash, appKey, true)
}

// accessQuery is the token lookup by access hash ($2) with the Application
// Key sent with it ($1); accessBusinessQuery also reads the token's business
// with its ledger state.
const (
	accessSelect = `SELECT ` + tokenColumns + `, COALESCE(k.key, ''), COALESCE(k.business_id, ''), COALESCE(k.coalition_id, ''),
		COALESCE(kb.clock_offset_seconds, 0), COALESCE(NOT kb.points_may_expire, FALSE)`
	accessFrom = ` FROM oauth_tokens t JOIN apps a ON a.id = t.app_id
		LEFT JOIN application_keys k ON k.key = $1 AND k.revoked_at IS NULL LEFT JOIN businesses kb ON kb.id = k.business_id`
	accessQuery = accessSelect + accessFrom + ` WHERE t.access_hash = $2`
)

var accessBusinessQuery = accessSelect + `, ` + businessWithRulesColumns + accessFrom + `
		LEFT JOIN businesses b ON b.id = t.business_id LEFT JOIN business_rules br ON br.business_id = b.id
		WHERE t.access_hash = $2`

func (d *DB) access(ctx context.Context, accessHash []byte, appKey string, withBusiness bool) (oauth.Token, loyalty.Business, error) {
	var t oauth.Token
	var revoked, used sql.NullTime
	var l businessWithRules
	var offset int64
	dest := append(tokenDest(&t, &revoked, &used), &t.Key.Key, &t.Key.BusinessID, &t.Key.CoalitionID, &offset,
		&t.Key.NeverExpires)
	query := accessQuery
	if withBusiness {
		query, dest = accessBusinessQuery, append(dest, l.dest()...)
	}
	err := d.row(ctx, query, appKey, accessHash).Scan(dest...)
	if err == sql.ErrNoRows {
		return t, loyalty.Business{}, loyalty.Errorf(loyalty.ENotFound, "Token not found.")
	} else if err != nil {
		return t, loyalty.Business{}, dbError(err)
	}
	t.Revoked, t.Spent = revoked.Valid, used.Valid
	t.Key.ClockOffset = time.Duration(offset) * time.Second
	var b loyalty.Business
	if lb := l.business(); lb != nil {
		b = *lb
		if err := loadOffers(ctx, d.db, &b); err != nil {
			return t, loyalty.Business{}, err
		}
	}
	return t, b, nil
}

// Refresh finds a token by the hash of its refresh token.
func (d *DB) Refresh(ctx context.Context, refreshHash []byte) (oauth.Token, error) {
	return scanToken(d.db.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM oauth_tokens t JOIN apps a ON a.id = t.app_id
		WHERE t.refresh_hash = $1`, refreshHash))
}

// SpendRefresh marks a refresh token used and revokes its access token.
// A refresh token that was already spent revokes its whole chain.
func (d *DB) SpendRefresh(ctx context.Context, refreshHash []byte, now time.Time) (oauth.Token, error) {
	var out oauth.Token
	err := d.runTx(ctx, func(x *tx) error {
		x.accessChanged()
		t, err := scanToken(x.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM oauth_tokens t JOIN apps a ON a.id = t.app_id
			WHERE t.refresh_hash = $1`, refreshHash))
		if err != nil {
			return err
		}
		// The conditional update decides the race between two uses, and
		// with a revocation committed since the read: either way the
		// refresh is refused (as spent) and the chain ends.
		res, err := x.ExecContext(ctx, `UPDATE oauth_tokens SET refresh_used_at = $1, revoked_at = $2
			WHERE id = $3 AND refresh_used_at IS NULL AND revoked_at IS NULL`, now.UTC(), now.UTC(), t.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 || t.Spent {
			t.Spent = true
			if _, err := x.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1 WHERE chain_id = $2 AND revoked_at IS NULL`, now.UTC(), t.ChainID); err != nil {
				return err
			}
		}
		out = t
		return nil
	})
	return out, err
}

// RevokeChain revokes every token pair of a chain; pairs already revoked
// keep the time they were revoked at.
func (d *DB) RevokeChain(ctx context.Context, chainID string, now time.Time) error {
	return d.runTx(ctx, func(x *tx) error {
		x.accessChanged()
		_, err := x.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1 WHERE chain_id = $2 AND revoked_at IS NULL`, now.UTC(), chainID)
		return err
	})
}

// RevokeToken revokes one token pair.
func (d *DB) RevokeToken(ctx context.Context, id string, now time.Time) error {
	return d.runTx(ctx, func(x *tx) error {
		x.accessChanged()
		_, err := x.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, now.UTC(), id)
		return err
	})
}
