package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// branchColumns are the columns scanBranch reads.
const branchColumns = `id, business_id, name, web_site, is_main, address_formatted, address_city, address_region,
	address_country, address_lat, address_long`

// scanBranch reads a row of branchColumns.
func scanBranch(row scanner) (loyalty.Branch, error) {
	var b loyalty.Branch
	var lat, long sql.NullFloat64
	a := &b.Address
	err := row.Scan(&b.ID, &b.BusinessID, &b.Name, &b.WebSite, &b.IsMain, &a.Formatted, &a.City, &a.Region, &a.Country, &lat, &long)
	if lat.Valid {
		a.Lat = &lat.Float64
	}
	if long.Valid {
		a.Long = &long.Float64
	}
	return b, err
}

// nullFloat is a coordinate as the database stores it.
func nullFloat(f *float64) sql.NullFloat64 {
	if f == nil {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: *f, Valid: true}
}

// Branch returns one branch of a business.
func (t *tx) Branch(ctx context.Context, businessID, branchID string) (loyalty.Branch, error) {
	b, err := scanBranch(t.QueryRowContext(ctx, `SELECT `+branchColumns+` FROM branches WHERE business_id = $1 AND id = $2`,
		businessID, branchID))
	if err == sql.ErrNoRows {
		return b, loyalty.Errorf(loyalty.ENotFound, "Branch not found.")
	}
	return b, dbError(err)
}

// BranchPage pages the branches of a business, the main one first.
func (d *DB) BranchPage(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Branch, int, error) {
	from, args, err := listWhere([]string{"business_id = $1"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Branch
	total, err := d.listPage(ctx, branchColumns, `FROM branches`+from, `is_main DESC, created_at, id`, args, q,
		func(rows *sql.Rows) error {
			b, err := scanBranch(rows)
			out = append(out, b)
			return err
		})
	return out, total, err
}

// InsertBranch stores a new branch (never the main one, which comes with
// the business).
func (t *tx) InsertBranch(ctx context.Context, b *loyalty.Branch) error {
	a := b.Address
	_, err := t.ExecContext(ctx, `INSERT INTO branches (id, business_id, name, web_site, is_main, created_at, address_formatted,
		address_city, address_region, address_country, address_lat, address_long) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		b.ID, b.BusinessID, b.Name, b.WebSite, false, t.now, a.Formatted, a.City, a.Region, a.Country, nullFloat(a.Lat), nullFloat(a.Long))
	return dbError(err)
}

// UpdateBranch stores a branch's name, web site and address.
func (t *tx) UpdateBranch(ctx context.Context, b *loyalty.Branch) error {
	a := b.Address
	_, err := t.ExecContext(ctx, `UPDATE branches SET name = $1, web_site = $2, address_formatted = $3, address_city = $4,
		address_region = $5, address_country = $6, address_lat = $7, address_long = $8 WHERE business_id = $9 AND id = $10`,
		b.Name, b.WebSite, a.Formatted, a.City, a.Region, a.Country, nullFloat(a.Lat), nullFloat(a.Long), b.BusinessID, b.ID)
	return dbError(err)
}

// MainBranch returns the main branch of a business.
func (t *tx) MainBranch(ctx context.Context, businessID string) (loyalty.Branch, error) {
	return mainBranch(ctx, t.Tx, businessID)
}

// MainBranch is tx.MainBranch outside a transaction.
func (d *DB) MainBranch(ctx context.Context, businessID string) (loyalty.Branch, error) {
	return mainBranch(ctx, d.db, businessID)
}

func mainBranch(ctx context.Context, q querier, businessID string) (loyalty.Branch, error) {
	var b loyalty.Branch
	err := q.QueryRowContext(ctx, `SELECT id, business_id, name, web_site, is_main FROM branches WHERE business_id = $1 AND is_main`,
		businessID).Scan(&b.ID, &b.BusinessID, &b.Name, &b.WebSite, &b.IsMain)
	if err == sql.ErrNoRows {
		return b, loyalty.Errorf(loyalty.ENotFound, "Branch not found.")
	}
	return b, dbError(err)
}
