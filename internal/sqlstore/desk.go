package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// likePrefix is a LIKE pattern matching strings that start with p.
func likePrefix(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(p) + "%"
}

// customerSearch is the FROM clause, with its WHERE, of the active
// customers of a business matching f, and its arguments.
//
// On PostgreSQL a prefix is matched as the business id, a space and the
// prefix against the expression its index keys (see migration 00022),
// so that the index serves the search and nothing else.
func customerSearch(dialect, businessID string, f loyalty.CustomerFilter) (string, []any) {
	conds := []string{"c.business_id = $1", activeCustomers(dialect)}
	args := []any{businessID}
	ph := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	// like matches expr's start against prefix.
	like := func(expr, prefix string) string {
		if dialect == Postgres {
			return `(c.business_id || ' ' || ` + expr + `) LIKE ` + ph(likePrefix(businessID+" "+prefix)) + ` ESCAPE '\'`
		}
		return expr + ` LIKE ` + ph(likePrefix(prefix)) + ` ESCAPE '\'`
	}
	if f.NamePrefix != "" {
		conds = append(conds, `(`+like(`lower(c.first_name || ' ' || c.last_name)`, f.NamePrefix)+` OR `+like(`lower(c.last_name)`, f.NamePrefix)+`)`)
	}
	if f.EmailPrefix != "" {
		conds = append(conds, like(`c.email`, f.EmailPrefix))
	}
	if len(f.PhonePrefixes) > 0 {
		var or []string
		for _, p := range f.PhonePrefixes {
			or = append(or, like(`c.phone`, p))
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	if f.Enabled != nil {
		conds = append(conds, "c.enabled = "+ph(*f.Enabled))
	}
	if !f.JoinedFrom.IsZero() {
		conds = append(conds, "c.created_at >= "+ph(f.JoinedFrom.UTC()))
	}
	if !f.JoinedBefore.IsZero() {
		conds = append(conds, "c.created_at < "+ph(f.JoinedBefore.UTC()))
	}
	return ` FROM customers c WHERE ` + strings.Join(conds, " AND "), args
}

// SearchCustomers pages the active customers of a business matching f,
// newest first, with the total that match.
func (d *DB) SearchCustomers(ctx context.Context, businessID string, f loyalty.CustomerFilter, offset, limit int) ([]loyalty.Customer, int, error) {
	from, args := customerSearch(d.dialect, businessID, f)
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, dbError(err)
	}
	if total <= offset {
		return nil, total, nil
	}
	var out []loyalty.Customer
	n := len(args)
	err := each(ctx, d, latePage("c", customerColumns(d.dialect), from, "c.created_at DESC, c.user_id DESC", n),
		append(args, limit, offset), scanCustomer, func(c loyalty.Customer) error {
			out = append(out, c)
			return nil
		})
	return out, total, err
}

// EachCustomer calls fn for each active customer of a business matching
// f, oldest first, as the database returns them: an export never holds
// them all.
func (d *DB) EachCustomer(ctx context.Context, businessID string, f loyalty.CustomerFilter, fn func(loyalty.Customer) error) error {
	from, args := customerSearch(d.dialect, businessID, f)
	return each(ctx, d, `SELECT `+customerColumns(d.dialect)+from+` ORDER BY c.created_at, c.user_id`, args, scanCustomer, fn)
}

// EachTransaction calls fn for each ledger entry of a business made in
// [from, to) (zero times: no bound), in the order they were written.
func (d *DB) EachTransaction(ctx context.Context, businessID string, from, to time.Time, fn func(loyalty.Transaction) error) error {
	conds, args := "t.business_id = $1", []any{businessID}
	if !from.IsZero() {
		args = append(args, from.UTC())
		conds += fmt.Sprintf(" AND t.created_at >= $%d", len(args))
	}
	if !to.IsZero() {
		args = append(args, to.UTC())
		conds += fmt.Sprintf(" AND t.created_at < $%d", len(args))
	}
	return each(ctx, d, `SELECT `+transactionColumns+` FROM transactions t WHERE `+conds+` ORDER BY t.id`, args, scanTransaction, fn)
}

// each runs a query and calls fn with each row as scan reads it.
func each[T any](ctx context.Context, d *DB, query string, args []any, scan func(scanner) (T, error), fn func(T) error) error {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return dbError(err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return dbError(rows.Err())
}

// TierTotalsOf sums the tier spend, points and visits of each customer of
// ids in [from, to); customers with no entries are left out.
func (d *DB) TierTotalsOf(ctx context.Context, businessID string, ids []string, from, to time.Time) (map[string]loyalty.TierTotals, error) {
	return tierTotalsOf(ctx, d.db, businessID, ids, from, to)
}

func tierTotalsOf(ctx context.Context, q querier, businessID string, ids []string, from, to time.Time) (map[string]loyalty.TierTotals, error) {
	out := map[string]loyalty.TierTotals{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := placeholders([]any{businessID, from.UTC(), to.UTC()}, ids)
	rows, err := q.QueryContext(ctx, `SELECT customer_id, COALESCE(SUM(tier_amount), 0), COALESCE(SUM(tier_points), 0),
		COALESCE(SUM(visits), 0) FROM transactions WHERE business_id = $1 AND created_at >= $2 AND created_at < $3
		AND customer_id IN (`+in+`) GROUP BY customer_id`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var tt loyalty.TierTotals
		if err := rows.Scan(&id, &tt.Amount, &tt.Points, &tt.Visits); err != nil {
			return nil, dbError(err)
		}
		out[id] = tt
	}
	return out, dbError(rows.Err())
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

// CouponByCode returns the coupon of a business with the qrcode, with its
// offer.
func (d *DB) CouponByCode(ctx context.Context, businessID, code string) (loyalty.Coupon, error) {
	c, err := scanCoupon(d.db.QueryRowContext(ctx, `SELECT `+couponColumns+` FROM coupons c WHERE c.qrcode = $1 AND c.business_id = $2`,
		code, businessID))
	if err != nil {
		return c, dbError(err)
	}
	c.Offer, err = offerByID(ctx, d.db, businessID, c.OfferID)
	return c, err
}
