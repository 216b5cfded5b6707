package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// insertAccountToken stores a new invitation or reset token.
func (t *tx) insertAccountToken(ctx context.Context, tok *loyalty.AccountToken) error {
	tok.CreatedAt = t.now
	return t.QueryRowContext(ctx, `INSERT INTO account_tokens (token_hash, purpose, account_kind, account_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, tok.Hash, tok.Purpose, tok.AccountKind, tok.AccountID, t.now, tok.ExpiresAt.UTC()).
		Scan(&tok.ID)
}

// spendAccountTokens voids an account's unused tokens of purpose.
func (t *tx) spendAccountTokens(ctx context.Context, kind, id, purpose string) error {
	_, err := t.ExecContext(ctx, `UPDATE account_tokens SET used_at = $1
		WHERE account_kind = $2 AND account_id = $3 AND purpose = $4 AND used_at IS NULL`, t.now, kind, id, purpose)
	return err
}

// spendAccountToken uses a token of the account once: ENotFound when it
// was used, voided or has expired.
func (t *tx) spendAccountToken(ctx context.Context, tokenID int64, kind, id string) error {
	res, err := t.ExecContext(ctx, `UPDATE account_tokens SET used_at = $1
		WHERE id = $2 AND account_kind = $3 AND account_id = $4 AND used_at IS NULL AND expires_at > $5`, t.now, tokenID, kind, id, t.now)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return loyalty.Errorf(loyalty.ENotFound, "The token is no longer valid.")
	}
	return nil
}

// AccountToken returns the token of purpose with hash, used or not; a
// used one is ENotFound.
func (d *DB) AccountToken(ctx context.Context, purpose string, hash []byte) (loyalty.AccountToken, error) {
	var tok loyalty.AccountToken
	var used sql.NullTime
	err := d.db.QueryRowContext(ctx, `SELECT id, token_hash, purpose, account_kind, account_id, created_at, expires_at, used_at
		FROM account_tokens WHERE token_hash = $1 AND purpose = $2`, hash, purpose).
		Scan(&tok.ID, &tok.Hash, &tok.Purpose, &tok.AccountKind, &tok.AccountID, &tok.CreatedAt, &tok.ExpiresAt, &used)
	if err == sql.ErrNoRows || used.Valid {
		return tok, loyalty.Errorf(loyalty.ENotFound, "The token is no longer valid.")
	}
	return tok, dbError(err)
}
