package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const offerColumns = `o.id, o.business_id, o.type_id, o.title, o.description, o.points, o.multip_factor, o.discount_value,
	o.real_value, o.coupon_kind, o.targeted, o.images, o.enabled, o.starts_at, o.expires_at, o.deleted_at, o.created_at, o.updated_at`

func scanOffer(row scanner) (loyalty.Offer, error) {
	var o loyalty.Offer
	var images string
	var expires, deleted sql.NullTime
	err := row.Scan(&o.ID, &o.BusinessID, &o.TypeID, &o.Title, &o.Description, &o.Points, &o.MultipFactor, &o.DiscountValue,
		&o.RealValue, &o.CouponKind, &o.Targeted, &images, &o.Enabled, &o.StartsAt, &expires, &deleted, &o.CreatedAt, &o.UpdatedAt)
	if err == sql.ErrNoRows {
		return o, loyalty.Errorf(loyalty.ENotFound, "Offer not found.")
	} else if err != nil {
		return o, err
	}
	o.ExpiresAt, o.Deleted = expires.Time, deleted.Valid
	return o, decodeImages(images, &o.Images)
}

func decodeImages(s string, dst *[]loyalty.Image) error {
	*dst = []loyalty.Image{}
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), dst)
}

func encodeImages(images []loyalty.Image) string {
	if len(images) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(images)
	return string(b)
}

// offerBranches loads the branch lists of offers.
func offerBranches(ctx context.Context, q querier, offers []loyalty.Offer) error {
	for i := range offers {
		rows, err := q.QueryContext(ctx, `SELECT branch_id FROM offer_branches WHERE offer_id = $1 ORDER BY branch_id`, offers[i].ID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			offers[i].BranchIDs = append(offers[i].BranchIDs, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// Offer returns one offer of a business, deleted ones included.
func (t *tx) Offer(ctx context.Context, businessID string, id int64) (loyalty.Offer, error) {
	return offerByID(ctx, t.Tx, businessID, id)
}

func offerByID(ctx context.Context, q querier, businessID string, id int64) (loyalty.Offer, error) {
	o, err := scanOffer(q.QueryRowContext(ctx, `SELECT `+offerColumns+` FROM offers o WHERE o.business_id = $1 AND o.id = $2`, businessID, id))
	if err != nil {
		return o, dbError(err)
	}
	list := []loyalty.Offer{o}
	if err := offerBranches(ctx, q, list); err != nil {
		return o, dbError(err)
	}
	rows, err := q.QueryContext(ctx, `SELECT customer_id FROM offer_targets WHERE offer_id = $1 ORDER BY customer_id`, id)
	if err != nil {
		return o, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var cid string
		if err := rows.Scan(&cid); err != nil {
			return o, dbError(err)
		}
		list[0].TargetIDs = append(list[0].TargetIDs, cid)
	}
	return list[0], dbError(rows.Err())
}

// PointsOffers returns the active multiplier and bonus-points offers that
// apply at a time to a reward of customerID at branchID.
func (t *tx) PointsOffers(ctx context.Context, businessID, customerID, branchID string, at time.Time) ([]loyalty.Offer, error) {
	return pointsOffers(ctx, t.Tx, businessID, customerID, branchID, at)
}

// PointsOffers is tx.PointsOffers outside a transaction.
func (d *DB) PointsOffers(ctx context.Context, businessID, customerID, branchID string, at time.Time) ([]loyalty.Offer, error) {
	return pointsOffers(ctx, d.db, businessID, customerID, branchID, at)
}

func pointsOffers(ctx context.Context, q querier, businessID, customerID, branchID string, at time.Time) ([]loyalty.Offer, error) {
	at = at.UTC()
	rows, err := q.QueryContext(ctx, `SELECT `+offerColumns+` FROM offers o
		WHERE o.business_id = $1 AND o.type_id IN (1, 3) AND o.enabled AND o.deleted_at IS NULL
		AND o.starts_at <= $2 AND (o.expires_at IS NULL OR o.expires_at > $3)
		AND (NOT o.targeted OR EXISTS (SELECT 1 FROM offer_targets ot WHERE ot.offer_id = o.id AND ot.customer_id = $4))
		AND (NOT EXISTS (SELECT 1 FROM offer_branches ob WHERE ob.offer_id = o.id)
		     OR EXISTS (SELECT 1 FROM offer_branches ob WHERE ob.offer_id = o.id AND ob.branch_id = $5))
		ORDER BY o.id`, businessID, at, at, customerID, branchID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Offer
	for rows.Next() {
		o, err := scanOffer(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, o)
	}
	return out, dbError(rows.Err())
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

// ClaimCoupon moves an available coupon to its redeemed state, once.
func (t *tx) ClaimCoupon(ctx context.Context, c *loyalty.Coupon) (bool, error) {
	res, err := t.ExecContext(ctx, `UPDATE coupons SET coupon_type_id = $1, claimed_at = $2, updated_at = $3
		WHERE id = $4 AND coupon_type_id IN (74, 91) AND NOT locked`, c.CouponTypeID, c.ClaimedAt.UTC(), c.UpdatedAt.UTC(), c.ID)
	if err != nil {
		return false, dbError(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

const rewardColumns = `r.id, r.business_id, r.kind, r.title, r.description, r.points, r.partner_reward, r.images, r.enabled,
	r.expires_at, r.deleted_at, r.created_at, r.updated_at`

func scanReward(row scanner) (loyalty.Reward, error) {
	var r loyalty.Reward
	var images string
	var expires, deleted sql.NullTime
	err := row.Scan(&r.ID, &r.BusinessID, &r.Kind, &r.Title, &r.Description, &r.Points, &r.PartnerReward, &images, &r.Enabled,
		&expires, &deleted, &r.CreatedAt, &r.UpdatedAt)
	if err == sql.ErrNoRows {
		return r, loyalty.Errorf(loyalty.ENotFound, "Reward not found.")
	} else if err != nil {
		return r, err
	}
	r.ExpiresAt, r.Deleted = expires.Time, deleted.Valid
	return r, decodeImages(images, &r.Images)
}

// Reward returns one reward of a business.
func (t *tx) Reward(ctx context.Context, businessID string, id int64) (loyalty.Reward, error) {
	r, err := scanReward(t.QueryRowContext(ctx, `SELECT `+rewardColumns+` FROM rewards r WHERE r.business_id = $1 AND r.id = $2`, businessID, id))
	return r, dbError(err)
}

const giftcardColumns = `g.id, g.business_id, g.title, g.description, g.points, g.discount_value, g.real_value, g.multip_factor,
	g.images, g.enabled, g.expires_at, g.deleted_at, g.created_at, g.updated_at`

func scanGiftcard(row scanner) (loyalty.Giftcard, error) {
	var g loyalty.Giftcard
	var images string
	var expires, deleted sql.NullTime
	err := row.Scan(&g.ID, &g.BusinessID, &g.Title, &g.Description, &g.Points, &g.DiscountValue, &g.RealValue, &g.MultipFactor,
		&images, &g.Enabled, &expires, &deleted, &g.CreatedAt, &g.UpdatedAt)
	if err == sql.ErrNoRows {
		return g, loyalty.Errorf(loyalty.ENotFound, "Gift card not found.")
	} else if err != nil {
		return g, err
	}
	g.ExpiresAt, g.Deleted = expires.Time, deleted.Valid
	return g, decodeImages(images, &g.Images)
}

// Giftcard returns one gift card of a business, deleted ones included,
// with its branches.
func (t *tx) Giftcard(ctx context.Context, businessID string, id int64) (loyalty.Giftcard, error) {
	return giftcardByID(ctx, t.Tx, businessID, id)
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
