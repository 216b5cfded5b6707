package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// BusinessAccountKind says which business account signs in with email:
// the owner's, a staff member's, or none (ENotFound).
func (d *DB) BusinessAccountKind(ctx context.Context, email string) (string, error) {
	var kind string
	err := d.db.QueryRowContext(ctx, `SELECT kind FROM (
		SELECT 'owner' AS kind, 0 AS pos FROM owners WHERE email = $1
		UNION ALL SELECT 'staff', 1 FROM staff WHERE email = $2) k ORDER BY pos LIMIT 1`, email, email).Scan(&kind)
	if err == sql.ErrNoRows {
		return "", loyalty.Errorf(loyalty.ENotFound, "No business account.")
	}
	return kind, dbError(err)
}

const staffColumns = `id, business_id, email, role, invited_by, created_at, joined_at, locked_until`

func scanStaff(row scanner) (loyalty.StaffMember, error) {
	var m loyalty.StaffMember
	var joined, locked sql.NullTime
	err := row.Scan(&m.ID, &m.BusinessID, &m.Email, &m.Role, &m.InvitedBy, &m.CreatedAt, &joined, &locked)
	if err == sql.ErrNoRows {
		return m, loyalty.Errorf(loyalty.ENotFound, "Staff member not found.")
	}
	m.JoinedAt, m.LockedUntil = joined.Time, locked.Time
	return m, dbError(err)
}

// StaffMembers lists a business's staff, oldest first.
func (d *DB) StaffMembers(ctx context.Context, businessID string) ([]loyalty.StaffMember, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+staffColumns+` FROM staff WHERE business_id = $1 ORDER BY created_at, id`, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.StaffMember
	for rows.Next() {
		m, err := scanStaff(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, dbError(rows.Err())
}

// StaffMember returns one member of a business's staff, or of any
// business when businessID is empty.
func (d *DB) StaffMember(ctx context.Context, businessID, id string) (loyalty.StaffMember, error) {
	if businessID == "" {
		return scanStaff(d.db.QueryRowContext(ctx, `SELECT `+staffColumns+` FROM staff WHERE id = $1`, id))
	}
	return scanStaff(d.db.QueryRowContext(ctx, `SELECT `+staffColumns+` FROM staff WHERE id = $1 AND business_id = $2`, id, businessID))
}

// InviteStaff stores a new member (m.CreatedAt zero) or finds a pending
// one, voids its unused invitations, stores the new token and queues msg,
// in one transaction.
func (d *DB) InviteStaff(ctx context.Context, m *loyalty.StaffMember, tok loyalty.AccountToken, msg loyalty.Message) error {
	return d.runTx(ctx, func(t *tx) error {
		if m.CreatedAt.IsZero() {
			if _, err := t.ExecContext(ctx, `INSERT INTO staff (id, business_id, email, role, invited_by, created_at)
				VALUES ($1, $2, $3, $4, $5, $6)`, m.ID, m.BusinessID, m.Email, m.Role, m.InvitedBy, t.now); err != nil {
				return err
			}
			m.CreatedAt = t.now
		} else {
			res, err := t.ExecContext(ctx, `UPDATE staff SET invited_by = $1 WHERE id = $2 AND business_id = $3 AND joined_at IS NULL`,
				m.InvitedBy, m.ID, m.BusinessID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return loyalty.Errorf(loyalty.EConflict, "%s already accepted the invitation.", m.Email)
			}
		}
		if err := t.spendAccountTokens(ctx, loyalty.AccountStaff, m.ID, loyalty.TokenInvite); err != nil {
			return err
		}
		tok.AccountKind, tok.AccountID = loyalty.AccountStaff, m.ID
		if err := t.insertAccountToken(ctx, &tok); err != nil {
			return err
		}
		return t.EnqueueMessage(ctx, &msg)
	})
}

// AcceptInvitation spends the invitation and sets the member's password.
func (d *DB) AcceptInvitation(ctx context.Context, tokenID int64, staffID, passwordHash string) error {
	return d.runTx(ctx, func(t *tx) error {
		if err := t.spendAccountToken(ctx, tokenID, loyalty.AccountStaff, staffID); err != nil {
			return err
		}
		res, err := t.ExecContext(ctx, `UPDATE staff SET password_hash = $1, joined_at = $2, failed_logins = 0, locked_until = NULL
			WHERE id = $3 AND joined_at IS NULL`, passwordHash, t.now, staffID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.ENotFound, "Invitation not found.")
		}
		return nil
	})
}

// SetStaffRole changes a member's role from one to the other.
func (d *DB) SetStaffRole(ctx context.Context, businessID, id, from, to string) error {
	return d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `UPDATE staff SET role = $1 WHERE id = $2 AND business_id = $3 AND role = $4`, to, id, businessID, from)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.EConflict, "The staff member changed meanwhile. Reload the page and try again.")
		}
		return nil
	})
}

// RemoveStaff deletes a member, their sessions and their tokens.
func (d *DB) RemoveStaff(ctx context.Context, businessID, id string) error {
	return d.runTx(ctx, func(t *tx) error {
		if _, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE kind = 'staff' AND subject_id = $1`, id); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `DELETE FROM account_tokens WHERE account_kind = 'staff' AND account_id = $1`, id); err != nil {
			return err
		}
		res, err := t.ExecContext(ctx, `DELETE FROM staff WHERE id = $1 AND business_id = $2`, id, businessID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.ENotFound, "Staff member not found.")
		}
		return nil
	})
}
