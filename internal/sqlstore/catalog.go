package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// listPage counts the rows of from (a FROM clause with its WHERE, whose
// arguments are args) and reads one page of cols from them in order,
// calling scan for each row.
func (d *DB) listPage(ctx context.Context, cols, from, order string, args []any, q loyalty.ListQuery, scan func(*sql.Rows) error) (int, error) {
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) `+from, args...).Scan(&total); err != nil {
		return 0, dbError(err)
	}
	if total <= q.Offset() {
		return total, nil
	}
	n := len(args)
	rows, err := d.db.QueryContext(ctx, `SELECT `+cols+` `+from+fmt.Sprintf(` ORDER BY %s LIMIT $%d OFFSET $%d`, order, n+1, n+2),
		append(args, q.PerPage, q.Offset())...)
	if err != nil {
		return 0, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return 0, dbError(err)
		}
	}
	return total, dbError(rows.Err())
}

// listWhere joins fixed conditions with the conditions of the list's filters.
func listWhere(fixed []string, args []any, q loyalty.ListQuery, columns map[string]string) (string, []any, error) {
	cond, args, err := filterSQL(q.Filters, columns, args)
	if err != nil {
		return "", nil, err
	}
	return ` WHERE ` + strings.Join(append(fixed, cond...), " AND "), args, nil
}

// placeholders returns "$k, $k+1, ..." for ids, appending them to args.
func placeholders(args []any, ids []int64) (string, []any) {
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = fmt.Sprintf("$%d", len(args))
	}
	return strings.Join(ph, ", "), args
}

// linkMap reads the (id, value) pairs of a link table for the given ids,
// such as the branches of some offers.
func linkMap(ctx context.Context, q querier, table, idCol, valCol string, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	list, args := placeholders(nil, ids)
	rows, err := q.QueryContext(ctx, `SELECT `+idCol+`, `+valCol+` FROM `+table+` WHERE `+idCol+` IN (`+list+`) ORDER BY `+idCol+`, `+valCol, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return nil, dbError(err)
		}
		out[id] = append(out[id], v)
	}
	return out, dbError(rows.Err())
}

// setLinkRows makes the link rows of id exactly values.
func setLinkRows(ctx context.Context, q querier, table, idCol, valCol string, id int64, values []string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+idCol+` = $1`, id); err != nil {
		return dbError(err)
	}
	for _, v := range values {
		if _, err := q.ExecContext(ctx, `INSERT INTO `+table+` (`+idCol+`, `+valCol+`) VALUES ($1, $2)`, id, v); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// withOfferLinks loads the branches, and the targets when asked, of offers.
func withOfferLinks(ctx context.Context, q querier, offers []loyalty.Offer, targets bool) error {
	ids := make([]int64, len(offers))
	for i, o := range offers {
		ids[i] = o.ID
	}
	branches, err := linkMap(ctx, q, "offer_branches", "offer_id", "branch_id", ids)
	if err != nil {
		return err
	}
	var custs map[int64][]string
	if targets {
		if custs, err = linkMap(ctx, q, "offer_targets", "offer_id", "customer_id", ids); err != nil {
			return err
		}
	}
	for i := range offers {
		offers[i].BranchIDs, offers[i].TargetIDs = branches[offers[i].ID], custs[offers[i].ID]
	}
	return nil
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

// Offer returns one offer of a business that is not deleted.
func (d *DB) Offer(ctx context.Context, businessID string, id int64) (loyalty.Offer, error) {
	o, err := offerByID(ctx, d.db, businessID, id)
	if err == nil && o.Deleted {
		err = loyalty.Errorf(loyalty.ENotFound, "Offer not found.")
	}
	return o, err
}

// offerFilterColumns maps the filterable fields of GET /offers to SQL.
var offerFilterColumns = map[string]string{"type_id": "o.type_id", "created_at": "o.created_at", "updated_at": "o.updated_at"}

// Offers pages the offers of a business that are not deleted, oldest first.
func (d *DB) Offers(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Offer, int, error) {
	from, args, err := listWhere([]string{"o.business_id = $1", "o.deleted_at IS NULL"}, []any{businessID}, q, offerFilterColumns)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Offer
	total, err := d.listPage(ctx, offerColumns, `FROM offers o`+from, `o.id`, args, q, func(rows *sql.Rows) error {
		o, err := scanOffer(rows)
		out = append(out, o)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, withOfferLinks(ctx, d.db, out, true)
}

// InsertOffer stores a new offer with its branches and targets.
func (t *tx) InsertOffer(ctx context.Context, o *loyalty.Offer) error {
	t.accessChanged() // whether the business has points offers
	err := t.QueryRowContext(ctx, `INSERT INTO offers (business_id, type_id, title, description, points, multip_factor, discount_value,
		real_value, coupon_kind, targeted, images, enabled, starts_at, expires_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id`,
		o.BusinessID, o.TypeID, o.Title, o.Description, o.Points, o.MultipFactor, o.DiscountValue, o.RealValue, o.CouponKind,
		o.Targeted, encodeImages(o.Images), o.Enabled, o.StartsAt.UTC(), nullTime(o.ExpiresAt), o.CreatedAt.UTC(), o.UpdatedAt.UTC()).Scan(&o.ID)
	if err != nil {
		return dbError(err)
	}
	return t.offerLinks(ctx, o)
}

// UpdateOffer writes an offer's fields, branches and targets.
func (t *tx) UpdateOffer(ctx context.Context, o *loyalty.Offer) error {
	t.accessChanged() // whether the business has points offers
	var deleted sql.NullTime
	if o.Deleted {
		deleted = nullTime(o.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE offers SET title = $1, description = $2, points = $3, multip_factor = $4, discount_value = $5,
		real_value = $6, coupon_kind = $7, targeted = $8, images = $9, enabled = $10, starts_at = $11, expires_at = $12,
		deleted_at = $13, updated_at = $14 WHERE business_id = $15 AND id = $16`,
		o.Title, o.Description, o.Points, o.MultipFactor, o.DiscountValue, o.RealValue, o.CouponKind, o.Targeted,
		encodeImages(o.Images), o.Enabled, o.StartsAt.UTC(), nullTime(o.ExpiresAt), deleted, o.UpdatedAt.UTC(), o.BusinessID, o.ID)
	if err != nil || o.Deleted {
		// A deleted offer keeps its links for the coupons that name it.
		return dbError(err)
	}
	return t.offerLinks(ctx, o)
}

func (t *tx) offerLinks(ctx context.Context, o *loyalty.Offer) error {
	if err := setLinkRows(ctx, t.Tx, "offer_branches", "offer_id", "branch_id", o.ID, o.BranchIDs); err != nil {
		return err
	}
	return setLinkRows(ctx, t.Tx, "offer_targets", "offer_id", "customer_id", o.ID, o.TargetIDs)
}
