package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// CustomerCoupons returns every coupon of a customer, oldest first, each
// with its offer, deleted or not.
func (d *DB) CustomerCoupons(ctx context.Context, businessID, customerID string) ([]loyalty.Coupon, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+couponColumns+` FROM coupons c WHERE c.business_id = $1 AND c.customer_id = $2
		ORDER BY c.id`, businessID, customerID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := []loyalty.Coupon{}
	for rows.Next() {
		c, err := scanCoupon(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, dbError(err)
	}
	rows.Close()
	seen := map[int64]bool{}
	var ids []int64
	for _, c := range out {
		if !seen[c.OfferID] {
			seen[c.OfferID] = true
			ids = append(ids, c.OfferID)
		}
	}
	offers, err := offersByID(ctx, d.db, businessID, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Offer = offers[out[i].OfferID]
	}
	return out, nil
}

// OffersByID implements loyalty.OfferFinder.
func (d *DB) OffersByID(ctx context.Context, businessID string, ids []int64) (map[int64]loyalty.Offer, error) {
	return offersByID(ctx, d.db, businessID, ids)
}

// OffersByID is DB.OffersByID in the transaction.
func (t *tx) OffersByID(ctx context.Context, businessID string, ids []int64) (map[int64]loyalty.Offer, error) {
	return offersByID(ctx, t.Tx, businessID, ids)
}

// offersByID reads the offers of a business with those ids, with their
// branches.
func offersByID(ctx context.Context, q querier, businessID string, ids []int64) (map[int64]loyalty.Offer, error) {
	list, args := placeholders([]any{businessID}, ids)
	rows, err := q.QueryContext(ctx, `SELECT `+offerColumns+` FROM offers o WHERE o.business_id = $1 AND o.id IN (`+list+`)`, args...)
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
	rows.Close()
	if err := withOfferLinks(ctx, q, offers, false); err != nil {
		return nil, err
	}
	out := make(map[int64]loyalty.Offer, len(offers))
	for _, o := range offers {
		out[o.ID] = o
	}
	return out, nil
}

const couponColumns = `c.id, c.business_id, c.offer_id, c.customer_id, c.qrcode, c.coupon_type_id, c.locked, c.expires_at,
	c.claimed_at, c.created_at, c.updated_at, c.entry_id, c.punch_card_id, c.taken_back_at`

func scanCoupon(row scanner) (loyalty.Coupon, error) {
	var c loyalty.Coupon
	var expires, claimed, takenBack sql.NullTime
	var entry, card sql.NullInt64
	err := row.Scan(&c.ID, &c.BusinessID, &c.OfferID, &c.CustomerID, &c.QRCode, &c.CouponTypeID, &c.Locked, &expires,
		&claimed, &c.CreatedAt, &c.UpdatedAt, &entry, &card, &takenBack)
	if err == sql.ErrNoRows {
		return c, loyalty.Errorf(loyalty.ENotFound, "Coupon not found.")
	}
	c.ExpiresAt, c.ClaimedAt, c.TakenBackAt = expires.Time, claimed.Time, takenBack.Time
	c.EntryID, c.PunchCardID = entry.Int64, card.Int64
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
		expires_at, created_at, updated_at, entry_id, punch_card_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		c.BusinessID, c.OfferID, c.CustomerID, c.QRCode, c.CouponTypeID, c.Locked, nullTime(c.ExpiresAt), c.CreatedAt.UTC(),
		c.UpdatedAt.UTC(), nullInt(c.EntryID), nullInt(c.PunchCardID)).Scan(&c.ID))
}

// EntryCoupons returns the coupons a reward issued, oldest first.
func (t *tx) EntryCoupons(ctx context.Context, businessID string, entryID int64) ([]loyalty.Coupon, error) {
	rows, err := t.QueryContext(ctx, `SELECT `+couponColumns+` FROM coupons c WHERE c.entry_id = $1 AND c.business_id = $2
		ORDER BY c.id`, entryID, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Coupon
	for rows.Next() {
		c, err := scanCoupon(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, c)
	}
	return out, dbError(rows.Err())
}

// TakeBackCoupon marks a coupon taken back at c.TakenBackAt if it is still
// in the state read (c's type and lock, not taken back): a coupon claimed
// meanwhile is left as it is.
func (t *tx) TakeBackCoupon(ctx context.Context, c *loyalty.Coupon) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE coupons SET taken_back_at = $1, updated_at = $2
		WHERE id = $3 AND coupon_type_id = $4 AND locked = $5 AND taken_back_at IS NULL`,
		c.TakenBackAt.UTC(), c.UpdatedAt.UTC(), c.ID, c.CouponTypeID, c.Locked)
	if err != nil {
		return false, dbError(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ClaimCoupon moves a coupon from the state read (from, and c's lock) to
// c's state, once: a coupon no longer in the state read is left as it is.
func (t *tx) ClaimCoupon(ctx context.Context, c *loyalty.Coupon, from int) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE coupons SET coupon_type_id = $1, claimed_at = $2, updated_at = $3
		WHERE id = $4 AND coupon_type_id = $5 AND locked = $6 AND taken_back_at IS NULL`, c.CouponTypeID, c.ClaimedAt.UTC(), c.UpdatedAt.UTC(), c.ID, from, c.Locked)
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
