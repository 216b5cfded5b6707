package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// portalAccountQuery reads an account of kind that can sign in: the
// columns id, business, e-mail and role of its table.
func portalAccountQuery(kind string) string {
	switch kind {
	case loyalty.AccountOwner:
		return `SELECT id, business_id, email, 'owner' FROM owners WHERE `
	case loyalty.AccountStaff:
		return `SELECT id, business_id, email, role FROM staff WHERE joined_at IS NOT NULL AND `
	default:
		return `SELECT id, '', email, '' FROM ` + loginTable(kind) + ` WHERE `
	}
}

// PortalAccount finds an account of kind by id, or by e-mail when id is
// empty; a staff member who has not joined has none.
func (d *DB) PortalAccount(ctx context.Context, kind, id, email string) (loyalty.PortalAccount, error) {
	a := loyalty.PortalAccount{Kind: kind}
	q, arg := portalAccountQuery(kind)+`id = $1`, id
	if id == "" {
		q, arg = portalAccountQuery(kind)+`email = $1`, email
	}
	err := d.db.QueryRowContext(ctx, q, arg).Scan(&a.ID, &a.BusinessID, &a.Email, &a.Role)
	if err == sql.ErrNoRows {
		return a, loyalty.Errorf(loyalty.ENotFound, "Account not found.")
	}
	return a, dbError(err)
}

// CountAccountTokens counts the tokens of purpose an account was sent since.
func (d *DB) CountAccountTokens(ctx context.Context, kind, id, purpose string, since time.Time) (int, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM account_tokens
		WHERE account_kind = $1 AND account_id = $2 AND purpose = $3 AND created_at >= $4`, kind, id, purpose, since.UTC()).Scan(&n)
	return n, dbError(err)
}

// InsertResetToken stores a reset token, voiding the account's unused
// ones, and queues msg, in one transaction.
func (d *DB) InsertResetToken(ctx context.Context, tok loyalty.AccountToken, msg loyalty.Message) error {
	return d.runTx(ctx, func(t *tx) error {
		if err := t.spendAccountTokens(ctx, tok.AccountKind, tok.AccountID, loyalty.TokenReset); err != nil {
			return err
		}
		if err := t.insertAccountToken(ctx, &tok); err != nil {
			return err
		}
		return t.EnqueueMessage(ctx, &msg)
	})
}

// setPassword stores an account's password hash and lifts its sign-in
// lock. Owners, staff, developers and support are not read by the token
// lookup, so its cache stays.
func (t *tx) setPassword(ctx context.Context, kind, id, hash string) error {
	res, err := t.ExecContext(ctx, `UPDATE `+loginTable(kind)+` SET password_hash = $1, failed_logins = 0, locked_until = NULL
		WHERE id = $2`, hash, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return loyalty.Errorf(loyalty.ENotFound, "Account not found.")
	}
	return nil
}

// ResetPassword spends the reset token, sets the password and ends the
// account's sessions, in one transaction.
func (d *DB) ResetPassword(ctx context.Context, tokenID int64, kind, id, hash string) error {
	return d.runTx(ctx, func(t *tx) error {
		if err := t.spendAccountToken(ctx, tokenID, kind, id); err != nil {
			return err
		}
		if err := t.setPassword(ctx, kind, id, hash); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE kind = $1 AND subject_id = $2`, kind, id)
		return err
	})
}

// ChangePassword sets the password and ends the account's sessions but
// the one whose hash is keep, in one transaction.
func (d *DB) ChangePassword(ctx context.Context, kind, id, hash string, keep []byte) error {
	return d.runTx(ctx, func(t *tx) error {
		if err := t.setPassword(ctx, kind, id, hash); err != nil {
			return err
		}
		_, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE kind = $1 AND subject_id = $2 AND id_hash <> $3`, kind, id, keep)
		return err
	})
}
