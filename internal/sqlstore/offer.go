package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const offerColumns = `o.id, o.business_id, o.type_id, o.title, o.description, o.points, o.multip_factor, o.discount_value,
	o.real_value, o.coupon_kind, o.targeted, o.images, o.enabled, o.starts_at, o.expires_at, o.deleted_at, o.created_at, o.updated_at,
	o.min_purchase, o.max_purchase, o.frequency, o.coupon_expires_in, o.external_id, o.languages,
	o.freq_days, o.peak_from, o.peak_to`

func scanOffer(row scanner) (loyalty.Offer, error) {
	var o loyalty.Offer
	var images, texts, days string
	var expires, deleted sql.NullTime
	var maxPurchase sql.NullInt64
	err := row.Scan(&o.ID, &o.BusinessID, &o.TypeID, &o.Title, &o.Description, &o.Points, &o.MultipFactor, &o.DiscountValue,
		&o.RealValue, &o.CouponKind, &o.Targeted, &images, &o.Enabled, &o.StartsAt, &expires, &deleted, &o.CreatedAt, &o.UpdatedAt,
		&o.MinPurchase, &maxPurchase, &o.Frequency, &o.CouponExpiresIn, &o.ExternalID, &texts,
		&days, &o.PeakFrom, &o.PeakTo)
	if err == sql.ErrNoRows {
		return o, loyalty.Errorf(loyalty.ENotFound, "Offer not found.")
	} else if err != nil {
		return o, err
	}
	o.ExpiresAt, o.Deleted, o.MaxPurchase = expires.Time, deleted.Valid, loyalty.Money(maxPurchase.Int64)
	o.Days = decodeDays(days)
	if err := decodeTexts(texts, &o.Texts); err != nil {
		return o, err
	}
	return o, decodeImages(images, &o.Images)
}

// decodeTexts reads the JSON of an object's texts per language.
func decodeTexts(s string, dst *[]loyalty.CatalogText) error {
	*dst = nil
	if s == "" || s == "[]" {
		return nil
	}
	return json.Unmarshal([]byte(s), dst)
}

// encodeTexts writes an object's texts per language as JSON.
func encodeTexts(texts []loyalty.CatalogText) string {
	if len(texts) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(texts)
	return string(b)
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

// PointsOffers returns every multiplier and bonus-points offer of a
// business that is not deleted, oldest first, with its branches (not its
// targets): the offers the domain decides a reward's from
// (loyalty.ApplicableOffers). One index range, offers by (business_id,
// type_id), and the branches of those offers by their primary key.
func (t *tx) PointsOffers(ctx context.Context, businessID string) ([]loyalty.Offer, error) {
	return pointsOffers(ctx, t.Tx, businessID)
}

// PointsOffers is tx.PointsOffers outside a transaction.
func (d *DB) PointsOffers(ctx context.Context, businessID string) ([]loyalty.Offer, error) {
	return pointsOffers(ctx, d.db, businessID)
}

// AllOffers returns every offer of a business that is not deleted, oldest
// first, with its branches (not its targets).
func (d *DB) AllOffers(ctx context.Context, businessID string) ([]loyalty.Offer, error) {
	return liveOffers(ctx, d.db, businessID, nil)
}

func pointsOffers(ctx context.Context, q querier, businessID string) ([]loyalty.Offer, error) {
	return liveOffers(ctx, q, businessID, loyalty.PointsOfferTypes())
}

// liveOffers reads the offers of a business that are not deleted, of the
// given types (nil: of every type), with their branches.
func liveOffers(ctx context.Context, q querier, businessID string, types []int) ([]loyalty.Offer, error) {
	where, args := "", []any{businessID}
	if types != nil {
		var list string
		list, args = placeholders(args, types)
		where = ` AND o.type_id IN (` + list + `)`
	}
	rows, err := q.QueryContext(ctx, `SELECT `+offerColumns+` FROM offers o
		WHERE o.business_id = $1`+where+` AND o.deleted_at IS NULL ORDER BY o.id`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := []loyalty.Offer{}
	for rows.Next() {
		o, err := scanOffer(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(err)
	}
	rows.Close()
	return out, withOfferLinks(ctx, q, out, false)
}

// CustomerOfferFacts reads what a customer's part in some offers is: which
// of them name the customer among their targets, and in which of periods
// the customer used each. Both by primary key.
func (t *tx) CustomerOfferFacts(ctx context.Context, customerID string, offerIDs []int64, periods []string) (loyalty.OfferFacts, error) {
	return customerOfferFacts(ctx, t.Tx, customerID, offerIDs, periods)
}

// CustomerOfferFacts is tx.CustomerOfferFacts outside a transaction.
func (d *DB) CustomerOfferFacts(ctx context.Context, customerID string, offerIDs []int64, periods []string) (loyalty.OfferFacts, error) {
	return customerOfferFacts(ctx, d.db, customerID, offerIDs, periods)
}

func customerOfferFacts(ctx context.Context, q querier, customerID string, offerIDs []int64, periods []string) (loyalty.OfferFacts, error) {
	facts := loyalty.OfferFacts{Targets: map[int64]bool{}, Uses: map[int64][]string{}}
	if len(offerIDs) == 0 {
		return facts, nil
	}
	args := []any{customerID}
	ids, args := placeholders(args, offerIDs)
	uses := "SELECT offer_id, period FROM offer_uses WHERE 1 = 0"
	if len(periods) > 0 {
		var in string
		in, args = placeholders(args, periods)
		uses = `SELECT offer_id, period FROM offer_uses WHERE customer_id = $1 AND offer_id IN (` + ids + `) AND period IN (` + in + `)`
	}
	rows, err := q.QueryContext(ctx, `SELECT offer_id, NULL FROM offer_targets WHERE customer_id = $1 AND offer_id IN (`+ids+`)
		UNION ALL `+uses, args...)
	if err != nil {
		return facts, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var period sql.NullString
		if err := rows.Scan(&id, &period); err != nil {
			return facts, dbError(err)
		}
		if period.Valid {
			facts.Uses[id] = append(facts.Uses[id], period.String)
		} else {
			facts.Targets[id] = true
		}
	}
	return facts, dbError(rows.Err())
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
		real_value, coupon_kind, targeted, images, enabled, starts_at, expires_at, created_at, updated_at,
		min_purchase, max_purchase, frequency, coupon_expires_in, external_id, languages, freq_days, peak_from, peak_to)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
		RETURNING id`,
		o.BusinessID, o.TypeID, o.Title, o.Description, o.Points, o.MultipFactor, o.DiscountValue, o.RealValue, o.CouponKind,
		o.Targeted, encodeImages(o.Images), o.Enabled, o.StartsAt.UTC(), nullTime(o.ExpiresAt), o.CreatedAt.UTC(), o.UpdatedAt.UTC(),
		o.MinPurchase, nullInt(int64(o.MaxPurchase)), o.Frequency, o.CouponExpiresIn, o.ExternalID, encodeTexts(o.Texts),
		encodeDays(o.Days), o.PeakFrom, o.PeakTo).Scan(&o.ID)
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
		deleted_at = $13, updated_at = $14, min_purchase = $15, max_purchase = $16, frequency = $17, coupon_expires_in = $18,
		external_id = $19, languages = $20, freq_days = $21, peak_from = $22, peak_to = $23 WHERE business_id = $24 AND id = $25`,
		o.Title, o.Description, o.Points, o.MultipFactor, o.DiscountValue, o.RealValue, o.CouponKind, o.Targeted,
		encodeImages(o.Images), o.Enabled, o.StartsAt.UTC(), nullTime(o.ExpiresAt), deleted, o.UpdatedAt.UTC(),
		o.MinPurchase, nullInt(int64(o.MaxPurchase)), o.Frequency, o.CouponExpiresIn, o.ExternalID, encodeTexts(o.Texts),
		encodeDays(o.Days), o.PeakFrom, o.PeakTo, o.BusinessID, o.ID)
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

// UseOffer records that a customer used a limited offer in a period, at a
// time; it reports false, writing nothing, when the customer has used it
// in that period already (a concurrent use waits for the first one and
// then loses).
func (t *tx) UseOffer(ctx context.Context, offerID int64, customerID, period string, at time.Time) (bool, error) {
	res, err := t.ExecContext(ctx, `INSERT INTO offer_uses (offer_id, customer_id, period, used_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (offer_id, customer_id, period) DO NOTHING`, offerID, customerID, period, at.UTC())
	if err != nil {
		return false, dbError(err)
	}
	n, err := res.RowsAffected()
	return n == 1, dbError(err)
}

// encodeDays writes the weekdays of a day-and-time offer as "1,2,5".
func encodeDays(days []int) string {
	parts := make([]string, len(days))
	for i, d := range days {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ",")
}

// decodeDays reads what encodeDays wrote.
func decodeDays(s string) []int {
	var days []int
	for _, p := range strings.Split(s, ",") {
		if d, err := strconv.Atoi(p); err == nil {
			days = append(days, d)
		}
	}
	return days
}
