package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// BusinessProfile returns a business's profile.
func (d *DB) BusinessProfile(ctx context.Context, businessID string) (loyalty.BusinessProfile, error) {
	var p loyalty.BusinessProfile
	err := d.db.QueryRowContext(ctx, `SELECT name, about, logo, cover, category, currency_code, time_zone, brand_color
		FROM businesses WHERE id = $1`, businessID).Scan(&p.Name, &p.About, &p.Logo, &p.Cover, &p.Category, &p.Currency,
		&p.TimeZone, &p.BrandColor)
	if err == sql.ErrNoRows {
		return p, loyalty.Errorf(loyalty.ENotFound, "Business not found.")
	}
	return p, dbError(err)
}

// UpdateBusinessProfile replaces the profile when every field still is as
// old has it, so the audit log's "before" is exactly what was replaced.
// The token lookup reads businesses, so its cache ends.
func (d *DB) UpdateBusinessProfile(ctx context.Context, businessID string, old, p loyalty.BusinessProfile) error {
	return d.runTx(ctx, func(t *tx) error {
		t.accessChanged()
		res, err := t.ExecContext(ctx, `UPDATE businesses SET name = $1, about = $2, logo = $3, cover = $4, category = $5,
			currency_code = $6, time_zone = $7, brand_color = $8, updated_at = $9
			WHERE id = $10 AND name = $11 AND about = $12 AND logo = $13 AND cover = $14 AND category = $15
			AND currency_code = $16 AND time_zone = $17 AND brand_color = $18`,
			p.Name, p.About, p.Logo, p.Cover, p.Category, p.Currency, p.TimeZone, p.BrandColor, t.now,
			businessID, old.Name, old.About, old.Logo, old.Cover, old.Category, old.Currency, old.TimeZone, old.BrandColor)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return loyalty.Errorf(loyalty.EConflict, "The profile was changed meanwhile. Reload the page and make your changes again.")
		}
		return nil
	})
}
