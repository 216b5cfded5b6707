package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// withExtra is a row whose first columns one scan function reads and whose
// last columns go to extra.
type withExtra struct {
	row   scanner
	extra []any
}

// Scan reads the row into dest followed by the extra destinations.
func (w withExtra) Scan(dest ...any) error { return w.row.Scan(append(dest, w.extra...)...) }

// customerOfferFrom is the FROM clause of the offers a customer sees at
// now, with its arguments: each offer that is not
// deleted with the state of the customer's coupons of it (an available
// one first, else a claimed one: the states the domain names
// loyalty.CouponIssued and loyalty.CouponClaimed()), whether the customer is
// one of its targets and whether the customer used it in the period its
// frequency names (usePeriod).
func customerOfferFrom(businessID, customerID string, now time.Time, used loyalty.OfferPeriods) (string, []any) {
	args := []any{customerID, customerID, now, businessID, customerID, businessID}
	period, args := usePeriod("o2", used, args)
	issued, args := placeholders(args, loyalty.CouponIssued())
	claimed, args := placeholders(args, loyalty.CouponClaimed())
	return `FROM offers o JOIN (
		SELECT o2.id AS offer_id, COALESCE(s.pending, s.claimed) AS coupon_type_id,
			EXISTS (SELECT 1 FROM offer_targets ot WHERE ot.offer_id = o2.id AND ot.customer_id = $1) AS is_target,
			EXISTS (SELECT 1 FROM offer_uses u WHERE u.offer_id = o2.id AND u.customer_id = $2
				AND u.period = ` + period + `) AS used
		FROM offers o2 LEFT JOIN (
			SELECT offer_id,
				MAX(CASE WHEN coupon_type_id IN (` + issued + `) AND (expires_at IS NULL OR expires_at > $3) THEN coupon_type_id END) AS pending,
				MAX(CASE WHEN coupon_type_id IN (` + claimed + `) THEN coupon_type_id END) AS claimed
			FROM coupons WHERE business_id = $4 AND customer_id = $5 GROUP BY offer_id
		) s ON s.offer_id = o2.id
		WHERE o2.business_id = $6 AND o2.deleted_at IS NULL
	) x ON x.offer_id = o.id`, args
}

// CustomerOffers pages the offers one customer sees at now, oldest first.
// A branch.id filter keeps the offers available at one of its branches
// (an offer of every branch is available at each).
func (d *DB) CustomerOffers(ctx context.Context, businessID, customerID string, now time.Time, used loyalty.OfferPeriods, q loyalty.ListQuery) ([]loyalty.CustomerOffer, int, error) {
	now = now.UTC()
	from, args := customerOfferFrom(businessID, customerID, now, used)
	args = append(args, now, now)
	fixed := []string{fmt.Sprintf(`(x.coupon_type_id IS NOT NULL OR (o.enabled AND o.starts_at <= $%d AND (o.expires_at IS NULL OR o.expires_at > $%d)
		AND (NOT o.targeted OR x.is_target) AND NOT x.used))`, len(args)-1, len(args))}
	var filters []loyalty.Filter
	for _, f := range q.Filters {
		if f.Field != "branch.id" {
			filters = append(filters, f)
			continue
		}
		ph := make([]string, len(f.Values))
		for i, v := range f.Values {
			s, _ := v.(string)
			args = append(args, strings.ToLower(s))
			ph[i] = fmt.Sprintf("$%d", len(args))
		}
		fixed = append(fixed, `(NOT EXISTS (SELECT 1 FROM offer_branches ob WHERE ob.offer_id = o.id)
			OR EXISTS (SELECT 1 FROM offer_branches ob WHERE ob.offer_id = o.id AND ob.branch_id IN (`+strings.Join(ph, ", ")+`)))`)
	}
	q.Filters = filters
	where, args, err := listWhere(fixed, args, q, map[string]string{"coupon_type_id": "x.coupon_type_id"})
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.CustomerOffer
	total, err := d.listPage(ctx, offerColumns+`, x.coupon_type_id, x.is_target, x.used`, from+where, `o.id`, args, q,
		func(rows *sql.Rows) error {
			var state sql.NullInt64
			var target, used bool
			o, err := scanOffer(withExtra{rows, []any{&state, &target, &used}})
			out = append(out, loyalty.CustomerOffer{Offer: o, CouponTypeID: int(state.Int64), IsTarget: target, Used: used})
			return err
		})
	if err != nil {
		return nil, 0, err
	}
	offers := make([]loyalty.Offer, len(out))
	for i := range out {
		offers[i] = out[i].Offer
	}
	if err := withOfferLinks(ctx, d.db, offers, false); err != nil {
		return nil, 0, err
	}
	for i := range out {
		out[i].BranchIDs = offers[i].BranchIDs
	}
	return out, total, nil
}

// AvailableCoupons pages the coupons of a customer that are neither
// claimed nor expired at now (loyalty.Coupon.Available), oldest first,
// each with its offer, deleted or not.
func (d *DB) AvailableCoupons(ctx context.Context, businessID, customerID string, now time.Time, q loyalty.ListQuery) ([]loyalty.Coupon, int, error) {
	issued, args := placeholders([]any{businessID, customerID, now.UTC()}, loyalty.CouponIssued())
	from := ` FROM coupons c WHERE c.business_id = $1 AND c.customer_id = $2 AND c.coupon_type_id IN (` + issued + `)
		AND (c.expires_at IS NULL OR c.expires_at > $3)`
	var out []loyalty.Coupon
	total, err := d.listPage(ctx, couponColumns, from, `c.id`, args, q, func(rows *sql.Rows) error {
		c, err := scanCoupon(rows)
		out = append(out, c)
		return err
	})
	if err != nil || len(out) == 0 {
		return out, total, err
	}
	offers, err := d.offersByID(ctx, businessID, out)
	if err != nil {
		return nil, 0, err
	}
	for i := range out {
		out[i].Offer = offers[out[i].OfferID]
	}
	return out, total, nil
}

// offersByID reads the offers the coupons name, with their branches.
func (d *DB) offersByID(ctx context.Context, businessID string, coupons []loyalty.Coupon) (map[int64]loyalty.Offer, error) {
	seen := map[int64]bool{}
	var ids []int64
	for _, c := range coupons {
		if !seen[c.OfferID] {
			seen[c.OfferID] = true
			ids = append(ids, c.OfferID)
		}
	}
	list, args := placeholders([]any{businessID}, ids)
	rows, err := d.db.QueryContext(ctx, `SELECT `+offerColumns+` FROM offers o WHERE o.business_id = $1 AND o.id IN (`+list+`)`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var offers []loyalty.Offer
	for rows.Next() {
		o, err := scanOffer(rows)
		if err != nil {
			return nil, dbError(err)
		}
		offers = append(offers, o)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(err)
	}
	if err := withOfferLinks(ctx, d.db, offers, false); err != nil {
		return nil, err
	}
	out := make(map[int64]loyalty.Offer, len(offers))
	for _, o := range offers {
		out[o.ID] = o
	}
	return out, nil
}

const couponColumns = `c.id, c.business_id, c.offer_id, c.customer_id, c.qrcode, c.coupon_type_id, c.locked, c.expires_at,
	c.claimed_at, c.created_at, c.updated_at`

func scanCoupon(row scanner) (loyalty.Coupon, error) {
	var c loyalty.Coupon
	var expires, claimed sql.NullTime
	err := row.Scan(&c.ID, &c.BusinessID, &c.OfferID, &c.CustomerID, &c.QRCode, &c.CouponTypeID, &c.Locked, &expires,
		&claimed, &c.CreatedAt, &c.UpdatedAt)
	if err == sql.ErrNoRows {
		return c, loyalty.Errorf(loyalty.ENotFound, "Coupon not found.")
	}
	c.ExpiresAt, c.ClaimedAt = expires.Time, claimed.Time
	return c, err
}

// Coupon returns one coupon of a business.
func (t *tx) Coupon(ctx context.Context, businessID string, id int64) (loyalty.Coupon, error) {
	c, err := scanCoupon(t.QueryRowContext(ctx, `SELECT `+couponColumns+` FROM coupons c WHERE c.business_id = $1 AND c.id = $2`, businessID, id))
	return c, dbError(err)
}

// InsertCoupon issues a coupon.
func (t *tx) InsertCoupon(ctx context.Context, c *loyalty.Coupon) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO coupons (business_id, offer_id, customer_id, qrcode, coupon_type_id, locked,
		expires_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
		c.BusinessID, c.OfferID, c.CustomerID, c.QRCode, c.CouponTypeID, c.Locked, nullTime(c.ExpiresAt), c.CreatedAt.UTC(),
		c.UpdatedAt.UTC()).Scan(&c.ID))
}

// ClaimCoupon moves a coupon from the state read (from, and c's lock) to
// c's state, once: a coupon no longer in the state read is left as it is.
func (t *tx) ClaimCoupon(ctx context.Context, c *loyalty.Coupon, from int) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE coupons SET coupon_type_id = $1, claimed_at = $2, updated_at = $3
		WHERE id = $4 AND coupon_type_id = $5 AND locked = $6`, c.CouponTypeID, c.ClaimedAt.UTC(), c.UpdatedAt.UTC(), c.ID, from, c.Locked)
	if err != nil {
		return false, dbError(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// CouponByID returns one coupon of a business with its offer.
func (d *DB) CouponByID(ctx context.Context, businessID string, id int64) (loyalty.Coupon, error) {
	c, err := scanCoupon(d.db.QueryRowContext(ctx, `SELECT `+couponColumns+` FROM coupons c WHERE c.business_id = $1 AND c.id = $2`, businessID, id))
	if err != nil {
		return c, dbError(err)
	}
	c.Offer, err = offerByID(ctx, d.db, businessID, c.OfferID)
	return c, err
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
