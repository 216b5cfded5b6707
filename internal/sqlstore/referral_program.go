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

// ReferralProgramPage pages the referral programs of a business, oldest first.
func (d *DB) ReferralProgramPage(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.ReferralProgram, int, error) {
	var out []loyalty.ReferralProgram
	total, err := d.listPage(ctx, referralProgramColumns, `FROM referral_programs WHERE business_id = $1`, `id`, []any{businessID}, q,
		func(rows *sql.Rows) error {
			p, err := scanReferralProgram(rows)
			out = append(out, p)
			return err
		})
	return out, total, err
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

// ReferralProgram returns one referral program of a business.
func (d *DB) ReferralProgram(ctx context.Context, businessID string, id int64) (loyalty.ReferralProgram, error) {
	p, err := scanReferralProgram(d.db.QueryRowContext(ctx, `SELECT `+referralProgramColumns+` FROM referral_programs
		WHERE business_id = $1 AND id = $2`, businessID, id))
	return p, dbError(err)
}

// InsertReferralProgram stores a new referral program.
func (t *tx) InsertReferralProgram(ctx context.Context, p *loyalty.ReferralProgram) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO referral_programs (business_id, rule_name, cond_min_amount, referee_earns,
		referer_earns, expires_in, enabled, link_referral_enabled, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		p.BusinessID, p.RuleName, p.CondMinAmount, p.RefereeEarns, p.RefererEarns, p.ExpiresIn, p.Enabled,
		p.LinkReferralEnabled, t.now, t.now).Scan(&p.ID))
}

// UpdateReferralProgram stores a referral program's fields.
func (t *tx) UpdateReferralProgram(ctx context.Context, p *loyalty.ReferralProgram) error {
	_, err := t.ExecContext(ctx, `UPDATE referral_programs SET rule_name = $1, cond_min_amount = $2, referee_earns = $3,
		referer_earns = $4, expires_in = $5, enabled = $6, link_referral_enabled = $7, updated_at = $8
		WHERE business_id = $9 AND id = $10`,
		p.RuleName, p.CondMinAmount, p.RefereeEarns, p.RefererEarns, p.ExpiresIn, p.Enabled, p.LinkReferralEnabled, t.now,
		p.BusinessID, p.ID)
	return dbError(err)
}

// DisableReferralPrograms disables every referral program of the business
// but exceptID.
func (t *tx) DisableReferralPrograms(ctx context.Context, businessID string, exceptID int64) error {
	_, err := t.ExecContext(ctx, `UPDATE referral_programs SET enabled = FALSE, updated_at = $1
		WHERE business_id = $2 AND enabled AND id <> $3`, t.now, businessID, exceptID)
	return dbError(err)
}
