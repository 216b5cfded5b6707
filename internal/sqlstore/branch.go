package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Branch returns one branch of a business.
func (t *tx) Branch(ctx context.Context, businessID, branchID string) (loyalty.Branch, error) {
	var b loyalty.Branch
	err := t.QueryRowContext(ctx, `SELECT id, business_id, name, web_site, is_main FROM branches WHERE business_id = $1 AND id = $2`,
		businessID, branchID).Scan(&b.ID, &b.BusinessID, &b.Name, &b.WebSite, &b.IsMain)
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
	total, err := d.listPage(ctx, `id, business_id, name, web_site, is_main`, `FROM branches`+from, `is_main DESC, created_at, id`, args, q,
		func(rows *sql.Rows) error {
			var b loyalty.Branch
			err := rows.Scan(&b.ID, &b.BusinessID, &b.Name, &b.WebSite, &b.IsMain)
			out = append(out, b)
			return err
		})
	return out, total, err
}

// InsertBranch stores a new branch (never the main one, which comes with
// the business).
func (t *tx) InsertBranch(ctx context.Context, b *loyalty.Branch) error {
	_, err := t.ExecContext(ctx, `INSERT INTO branches (id, business_id, name, web_site, is_main, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		b.ID, b.BusinessID, b.Name, b.WebSite, false, t.now)
	return dbError(err)
}

// MainBranch returns the main branch of a business.
func (t *tx) MainBranch(ctx context.Context, businessID string) (loyalty.Branch, error) {
	var b loyalty.Branch
	err := t.QueryRowContext(ctx, `SELECT id, business_id, name, web_site, is_main FROM branches WHERE business_id = $1 AND is_main`,
		businessID).Scan(&b.ID, &b.BusinessID, &b.Name, &b.WebSite, &b.IsMain)
	if err == sql.ErrNoRows {
		return b, loyalty.Errorf(loyalty.ENotFound, "Branch not found.")
	}
	return b, dbError(err)
}
