package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// personColumns read a person's own record with the user API's extras.
const personColumns = userColumns + `, u.pin_hash IS NOT NULL, u.email_verified_at, u.phone_verified_at`

func scanPerson(row scanner) (loyalty.Person, error) {
	var p loyalty.Person
	var email, phone sql.NullTime
	err := row.Scan(append(userDest(&p.User), &p.HasPIN, &email, &phone)...)
	if err == sql.ErrNoRows {
		return p, loyalty.Errorf(loyalty.ENotFound, "User not found.")
	}
	p.EmailVerifiedAt, p.PhoneVerifiedAt = email.Time, phone.Time
	return p, dbError(err)
}

// Person returns a person's own record.
func (d *DB) Person(ctx context.Context, id string) (loyalty.Person, error) {
	return scanPerson(d.row(ctx, `SELECT `+personColumns+` FROM users u WHERE u.id = $1`, id))
}

// Person returns a person's own record inside the transaction.
func (t *tx) Person(ctx context.Context, id string) (loyalty.Person, error) {
	return scanPerson(t.QueryRowContext(ctx, `SELECT `+personColumns+` FROM users u WHERE u.id = $1`, id))
}

// Program resolves a tenant into its businesses, oldest first, and the
// name it goes by.
func (d *DB) Program(ctx context.Context, t loyalty.Tenant) (loyalty.Program, error) {
	p := loyalty.Program{Tenant: t}
	col, id := "b.id", t.BusinessID
	if t.BusinessID == "" {
		col, id = "b.coalition_id", t.CoalitionID
		err := d.row(ctx, `SELECT name FROM coalitions WHERE id = $1`, id).Scan(&p.CoalitionName)
		if err != nil && err != sql.ErrNoRows {
			return p, dbError(err)
		}
		p.Name = p.CoalitionName
	}
	rows, err := d.rows(ctx, `SELECT `+businessColumns+` FROM businesses b WHERE `+col+` = $1 ORDER BY b.created_at, b.id`, id)
	if err != nil {
		return p, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b loyalty.Business
		if err := scanBusiness(rows, &b); err != nil {
			return p, dbError(err)
		}
		p.Businesses = append(p.Businesses, b)
	}
	if p.Name == "" && len(p.Businesses) > 0 {
		p.Name = p.Businesses[0].Name
	}
	return p, dbError(rows.Err())
}

// inIDs numbers placeholders for ids after the n arguments already given.
func inIDs(n int, ids []string) (string, []any) {
	marks := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		marks[i] = fmt.Sprintf("$%d", n+i+1)
		args[i] = id
	}
	return strings.Join(marks, ", "), args
}

// Memberships returns the person's active memberships among businessIDs,
// in the order of businessIDs.
func (d *DB) Memberships(ctx context.Context, userID string, businessIDs []string) ([]loyalty.Membership, error) {
	if len(businessIDs) == 0 {
		return nil, nil
	}
	marks, args := inIDs(1, businessIDs)
	rows, err := d.db.QueryContext(ctx, `SELECT `+businessColumns+`, `+balanceColumns(d.dialect)+` FROM customers c
		JOIN businesses b ON b.id = c.business_id
		WHERE c.user_id = $1 AND c.deleted_at IS NULL AND c.business_id IN (`+marks+`)`, append([]any{userID}, args...)...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Membership
	for rows.Next() {
		var m loyalty.Membership
		if err := scanBusiness(rows, &m.Business, balanceDest(&m.Balance)...); err != nil {
			return nil, dbError(err)
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b loyalty.Membership) int {
		return slices.Index(businessIDs, a.Business.ID) - slices.Index(businessIDs, b.Business.ID)
	})
	return out, dbError(rows.Err())
}

// IsMember reports whether the person is an active customer of one of
// businessIDs.
func (t *tx) IsMember(ctx context.Context, userID string, businessIDs []string) (bool, error) {
	if len(businessIDs) == 0 {
		return false, nil
	}
	marks, args := inIDs(1, businessIDs)
	var n int
	err := t.QueryRowContext(ctx, `SELECT COUNT(*) FROM customers WHERE user_id = $1 AND deleted_at IS NULL
		AND business_id IN (`+marks+`)`, append([]any{userID}, args...)...).Scan(&n)
	return n > 0, dbError(err)
}

// SetUserPIN stores a PIN hash and lifts any sign-in lock.
func (t *tx) SetUserPIN(ctx context.Context, userID, hash string) error {
	_, err := t.ExecContext(ctx, `UPDATE users SET pin_hash = $1, failed_logins = 0, locked_until = NULL, updated_at = $2
		WHERE id = $3`, hash, t.now, userID)
	return dbError(err)
}

// RevokeUserTokens revokes every access and refresh token of a person
// and ends their wallet sessions.
func (t *tx) RevokeUserTokens(ctx context.Context, userID string) error {
	t.accessChanged()
	if _, err := t.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1 WHERE subject_kind = 'user' AND subject_id = $2
		AND revoked_at IS NULL`, t.now, userID); err != nil {
		return dbError(err)
	}
	// The member's wallet sessions end with them.
	_, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE kind = 'member' AND subject_id = $1`, userID)
	return dbError(err)
}

// SetContactVerified marks the e-mail or phone verified at at, or
// unverified when at is zero.
func (t *tx) SetContactVerified(ctx context.Context, userID, kind string, at time.Time) error {
	col := "email_verified_at"
	if kind == loyalty.ContactPhone {
		col = "phone_verified_at"
	}
	_, err := t.ExecContext(ctx, `UPDATE users SET `+col+` = $1 WHERE id = $2`, nullTime(at), userID)
	return dbError(err)
}

const secretColumns = `id, user_id, purpose, target, secret_hash, tries, expires_at, used_at, created_at`

func scanSecret(row scanner) (loyalty.UserSecret, error) {
	var s loyalty.UserSecret
	var used sql.NullTime
	err := row.Scan(&s.ID, &s.UserID, &s.Purpose, &s.Target, &s.Hash, &s.Tries, &s.ExpiresAt, &used, &s.CreatedAt)
	if err == sql.ErrNoRows {
		return s, loyalty.Errorf(loyalty.ENotFound, "Secret not found.")
	}
	s.UsedAt = used.Time
	return s, dbError(err)
}

// InsertUserSecret voids the person's unused secrets of the same purpose
// (and, for verification, of the same target) and stores the new one.
func (t *tx) InsertUserSecret(ctx context.Context, s *loyalty.UserSecret) error {
	void := `UPDATE user_secrets SET used_at = $1 WHERE user_id = $2 AND purpose = $3 AND used_at IS NULL`
	args := []any{s.CreatedAt.UTC(), s.UserID, s.Purpose}
	if s.Purpose == loyalty.SecretVerify {
		void += ` AND target = $4`
		args = append(args, s.Target)
	}
	if _, err := t.ExecContext(ctx, void, args...); err != nil {
		return dbError(err)
	}
	err := t.QueryRowContext(ctx, `INSERT INTO user_secrets (user_id, purpose, target, secret_hash, tries, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, s.UserID, s.Purpose, s.Target, s.Hash, s.Tries,
		s.ExpiresAt.UTC(), s.CreatedAt.UTC()).Scan(&s.ID)
	return dbError(err)
}

// UserSecretByHash finds a secret of purpose by its hash.
func (t *tx) UserSecretByHash(ctx context.Context, purpose string, hash []byte) (loyalty.UserSecret, error) {
	return scanSecret(t.QueryRowContext(ctx, `SELECT `+secretColumns+` FROM user_secrets
		WHERE secret_hash = $1 AND purpose = $2`, hash, purpose))
}

// LatestUserSecret returns the person's newest secret of purpose.
func (t *tx) LatestUserSecret(ctx context.Context, userID, purpose string) (loyalty.UserSecret, error) {
	return scanSecret(t.QueryRowContext(ctx, `SELECT `+secretColumns+` FROM user_secrets
		WHERE user_id = $1 AND purpose = $2 ORDER BY id DESC LIMIT 1`, userID, purpose))
}

// CountResetSecrets counts the PIN-reset secrets a person was sent since.
func (t *tx) CountResetSecrets(ctx context.Context, userID string, since time.Time) (int, error) {
	var n int
	err := t.QueryRowContext(ctx, `SELECT COUNT(*) FROM user_secrets WHERE user_id = $1
		AND purpose IN ('reset_token', 'reset_code') AND created_at >= $2`, userID, since.UTC()).Scan(&n)
	return n, dbError(err)
}

// CountSignInCodes counts the sign-in codes a person was sent since.
func (t *tx) CountSignInCodes(ctx context.Context, userID string, since time.Time) (int, error) {
	var n int
	err := t.QueryRowContext(ctx, `SELECT COUNT(*) FROM user_secrets WHERE user_id = $1
		AND purpose = 'signin_code' AND created_at >= $2`, userID, since.UTC()).Scan(&n)
	return n, dbError(err)
}

// SpendUserSecret marks a secret used, once.
func (t *tx) SpendUserSecret(ctx context.Context, id int64, at time.Time) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE user_secrets SET used_at = $1 WHERE id = $2 AND used_at IS NULL`, at.UTC(), id)
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// AddSecretTry counts one try of a code and returns the new count.
func (t *tx) AddSecretTry(ctx context.Context, id int64) (int, error) {
	var n int
	err := t.QueryRowContext(ctx, `UPDATE user_secrets SET tries = tries + 1 WHERE id = $1 RETURNING tries`, id).Scan(&n)
	return n, dbError(err)
}
