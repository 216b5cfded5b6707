package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// HasReferral reports whether a person was already referred to a business.
func (t *tx) HasReferral(ctx context.Context, businessID, refereeID string) (bool, error) {
	var n int
	err := t.QueryRowContext(ctx, `SELECT COUNT(*) FROM referrals WHERE business_id = $1 AND referee_id = $2`, businessID, refereeID).Scan(&n)
	return n > 0, dbError(err)
}

// InsertReferral links a referee to a referrer and flags the referee so
// that rewards look for the referral only while it is unpaid.
func (t *tx) InsertReferral(ctx context.Context, r *loyalty.Referral) error {
	err := t.QueryRowContext(ctx, `INSERT INTO referrals (business_id, referral_program_id, referrer_id, referee_id, created_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, r.BusinessID, r.ProgramID, r.ReferrerID, r.RefereeID, r.CreatedAt.UTC()).Scan(&r.ID)
	if err != nil {
		return dbError(err)
	}
	_, err = t.ExecContext(ctx, `UPDATE customers SET referral_pending = TRUE WHERE business_id = $1 AND user_id = $2`, r.BusinessID, r.RefereeID)
	return dbError(err)
}

// PendingReferral returns the unpaid referral of a referee with its program.
func (t *tx) PendingReferral(ctx context.Context, businessID, refereeID string) (loyalty.Referral, loyalty.ReferralProgram, error) {
	var r loyalty.Referral
	var p loyalty.ReferralProgram
	err := t.QueryRowContext(ctx, `SELECT r.id, r.business_id, r.referral_program_id, r.referrer_id, r.referee_id, r.created_at,
		p.id, p.business_id, p.rule_name, p.cond_min_amount, p.referee_earns, p.referer_earns, p.expires_in, p.enabled, p.link_referral_enabled
		FROM referrals r JOIN referral_programs p ON p.id = r.referral_program_id
		WHERE r.business_id = $1 AND r.referee_id = $2 AND r.paid_at IS NULL`, businessID, refereeID).Scan(
		&r.ID, &r.BusinessID, &r.ProgramID, &r.ReferrerID, &r.RefereeID, &r.CreatedAt,
		&p.ID, &p.BusinessID, &p.RuleName, &p.CondMinAmount, &p.RefereeEarns, &p.RefererEarns, &p.ExpiresIn, &p.Enabled, &p.LinkReferralEnabled)
	if err == sql.ErrNoRows {
		return r, p, loyalty.Errorf(loyalty.ENotFound, "No pending referral.")
	}
	return r, p, dbError(err)
}

// SettleReferral marks a referral settled once and clears the referee's
// pending flag.
func (t *tx) SettleReferral(ctx context.Context, r loyalty.Referral, outcome string) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE referrals SET paid_at = $1, outcome = $2 WHERE id = $3 AND paid_at IS NULL`, t.now, outcome, r.ID)
	if err != nil {
		return false, dbError(err)
	}
	n, _ := res.RowsAffected()
	if _, err := t.ExecContext(ctx, `UPDATE customers SET referral_pending = FALSE WHERE business_id = $1 AND user_id = $2`,
		r.BusinessID, r.RefereeID); err != nil {
		return false, dbError(err)
	}
	return n == 1, nil
}

const referralColumns = `r.id, r.business_id, r.referral_program_id, r.referrer_id, r.referee_id, r.created_at, r.paid_at`

func scanReferral(row scanner) (loyalty.Referral, error) {
	var r loyalty.Referral
	var paid sql.NullTime
	err := row.Scan(&r.ID, &r.BusinessID, &r.ProgramID, &r.ReferrerID, &r.RefereeID, &r.CreatedAt, &paid)
	r.Paid = paid.Valid
	return r, err
}

// CustomerReferrals returns the referral that brought a customer (nil
// when none) and the referrals the customer made, newest first.
func (d *DB) CustomerReferrals(ctx context.Context, businessID, customerID string) (*loyalty.Referral, []loyalty.Referral, error) {
	var by *loyalty.Referral
	r, err := scanReferral(d.db.QueryRowContext(ctx, `SELECT `+referralColumns+` FROM referrals r
		WHERE r.business_id = $1 AND r.referee_id = $2`, businessID, customerID))
	if err == nil {
		by = &r
	} else if err != sql.ErrNoRows {
		return nil, nil, dbError(err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+referralColumns+` FROM referrals r
		WHERE r.business_id = $1 AND r.referrer_id = $2 ORDER BY r.id DESC LIMIT 100`, businessID, customerID)
	if err != nil {
		return nil, nil, dbError(err)
	}
	defer rows.Close()
	var made []loyalty.Referral
	for rows.Next() {
		r, err := scanReferral(rows)
		if err != nil {
			return nil, nil, dbError(err)
		}
		made = append(made, r)
	}
	return by, made, dbError(rows.Err())
}
