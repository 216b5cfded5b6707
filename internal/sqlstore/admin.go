package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The reads and writes of support's operations on businesses and
// coalitions (loyalty.AdminStore).

// liveKey selects the live Application Key of the row's business or
// coalition (col names the application_keys column, id the outer column).
func liveKey(col, id string) string {
	return `COALESCE((SELECT k.key FROM application_keys k WHERE k.` + col + ` = ` + id +
		` AND k.revoked_at IS NULL ORDER BY k.created_at DESC LIMIT 1), '')`
}

var businessSummarySelect = `SELECT b.id, b.name, b.loyalty_type, b.country_code, COALESCE(b.coalition_id, ''),
	COALESCE(o.id, ''), COALESCE(o.email, ''), o.locked_until, b.created_at, ` + liveKey("business_id", "b.id") + `
	FROM businesses b LEFT JOIN owners o ON o.business_id = b.id`

func scanBusinessSummary(row scanner) (loyalty.BusinessSummary, error) {
	var b loyalty.BusinessSummary
	var locked sql.NullTime
	err := row.Scan(&b.ID, &b.Name, &b.LoyaltyType, &b.Country, &b.CoalitionID, &b.OwnerID, &b.OwnerEmail, &locked,
		&b.CreatedAt, &b.ApplicationKey)
	b.OwnerLocked = locked.Time
	return b, err
}

// BusinessSummaries lists every business with its owner and live key,
// oldest first.
func (d *DB) BusinessSummaries(ctx context.Context) ([]loyalty.BusinessSummary, error) {
	rows, err := d.db.QueryContext(ctx, businessSummarySelect+` ORDER BY b.created_at, b.id`)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.BusinessSummary
	for rows.Next() {
		b, err := scanBusinessSummary(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, b)
	}
	return out, dbError(rows.Err())
}

// BusinessSummary returns the business with id, or, when id is empty, the
// business whose owner signs in with ownerEmail.
func (d *DB) BusinessSummary(ctx context.Context, id, ownerEmail string) (loyalty.BusinessSummary, error) {
	where, arg := ` WHERE b.id = $1`, id
	if id == "" {
		where, arg = ` WHERE o.email = $1`, ownerEmail
	}
	b, err := scanBusinessSummary(d.db.QueryRowContext(ctx, businessSummarySelect+where, arg))
	if err == sql.ErrNoRows {
		return b, loyalty.Errorf(loyalty.ENotFound, "Business not found.")
	}
	return b, dbError(err)
}

// HasBusinesses reports whether any business exists.
func (d *DB) HasBusinesses(ctx context.Context) (bool, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM businesses LIMIT 1) x`).Scan(&n)
	return n > 0, dbError(err)
}

// Coalitions lists every coalition with its live key and member count,
// oldest first.
func (d *DB) Coalitions(ctx context.Context) ([]loyalty.CoalitionSummary, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT c.id, c.name, c.created_at, `+liveKey("coalition_id", "c.id")+`,
		(SELECT COUNT(*) FROM businesses b WHERE b.coalition_id = c.id)
		FROM coalitions c ORDER BY c.created_at, c.id`)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.CoalitionSummary
	for rows.Next() {
		var c loyalty.CoalitionSummary
		if err := rows.Scan(&c.ID, &c.Name, &c.CreatedAt, &c.ApplicationKey, &c.Members); err != nil {
			return nil, dbError(err)
		}
		out = append(out, c)
	}
	return out, dbError(rows.Err())
}

// SetOwnerPassword stores an owner's new password hash, lifts any sign-in
// lock, ends the owner's portal sessions and queues m when it is set, in
// one transaction. A password is no part of a token lookup, so the token
// cache is left as it is.
func (d *DB) SetOwnerPassword(ctx context.Context, ownerID, hash string, m *loyalty.Message) error {
	return d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `UPDATE owners SET password_hash = $1, failed_logins = 0, locked_until = NULL WHERE id = $2`,
			hash, ownerID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.ENotFound, "Owner not found.")
		}
		if _, err := t.ExecContext(ctx, `DELETE FROM web_sessions WHERE kind = 'owner' AND subject_id = $1`, ownerID); err != nil {
			return err
		}
		if m == nil {
			return nil
		}
		return t.EnqueueMessage(ctx, m)
	})
}
