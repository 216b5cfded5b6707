package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const referralProgramColumns = `id, business_id, rule_name, cond_min_amount, referee_earns, referer_earns, expires_in,
	enabled, link_referral_enabled`

func scanReferralProgram(row scanner) (loyalty.ReferralProgram, error) {
	var p loyalty.ReferralProgram
	err := row.Scan(&p.ID, &p.BusinessID, &p.RuleName, &p.CondMinAmount, &p.RefereeEarns, &p.RefererEarns, &p.ExpiresIn,
		&p.Enabled, &p.LinkReferralEnabled)
	if err == sql.ErrNoRows {
		return p, loyalty.Errorf(loyalty.ENotFound, "Referral program not found.")
	}
	return p, err
}

// ReferralPrograms lists the referral programs of a business.
func (d *DB) ReferralPrograms(ctx context.Context, businessID string) ([]loyalty.ReferralProgram, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+referralProgramColumns+` FROM referral_programs WHERE business_id = $1 ORDER BY id`, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.ReferralProgram
	for rows.Next() {
		p, err := scanReferralProgram(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, p)
	}
	return out, dbError(rows.Err())
}

// ReferralProgram returns one referral program of a business.
func (t *tx) ReferralProgram(ctx context.Context, businessID string, id int64) (loyalty.ReferralProgram, error) {
	p, err := scanReferralProgram(t.QueryRowContext(ctx, `SELECT `+referralProgramColumns+` FROM referral_programs
		WHERE business_id = $1 AND id = $2`, businessID, id))
	return p, dbError(err)
}

// ReferralProgramByID returns a referral program by its id alone, whatever
// its business: the public referral page knows only the id in its link.
func (d *DB) ReferralProgramByID(ctx context.Context, id int64) (loyalty.ReferralProgram, error) {
	p, err := scanReferralProgram(d.db.QueryRowContext(ctx, `SELECT `+referralProgramColumns+` FROM referral_programs
		WHERE id = $1`, id))
	return p, dbError(err)
}

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
