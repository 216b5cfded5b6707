package sqlstore

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The dashboard's insights (loyalty.Insights), read from the ledger: every
// query walks the period's entries of one business by the index
// transactions_created (business_id, created_at, id), and finds whether an
// entry was cancelled by the unique index on reverses_id; so a query costs
// the period's entries, not the business's history or its customers.

// insightScope is the WHERE clause of the live entries of a period (t),
// with its arguments: $1 the business, $2 and $3 the period, $4 the
// branch when one is chosen.
func insightScope(businessID string, q loyalty.InsightQuery) (string, []any) {
	where := ` t.business_id = $1 AND t.created_at >= $2 AND t.created_at < $3
		AND t.reverses_id IS NULL AND NOT EXISTS (SELECT 1 FROM transactions c WHERE c.reverses_id = t.id)`
	args := []any{businessID, q.Start.UTC(), q.End.UTC()}
	if q.BranchID != "" {
		where += ` AND t.branch_id = $4`
		args = append(args, q.BranchID)
	}
	return where, args
}

// limit is a ranking's LIMIT clause (a number, not a placeholder: SQLite
// numbers placeholders by first appearance).
func limit(n int) string {
	if n <= 0 {
		n = 5
	}
	return ` LIMIT ` + strconv.Itoa(n)
}

// DashboardInsights reads the rankings and the member activity of a
// period in one read-only snapshot.
func (d *DB) DashboardInsights(ctx context.Context, businessID string, q loyalty.InsightQuery) (loyalty.Insights, error) {
	var out loyalty.Insights
	t, err := d.snapshotTx(ctx)
	if err != nil {
		return out, dbError(err)
	}
	defer func() { _ = t.Rollback() }()
	if out.Rewards, err = topRewards(ctx, t, businessID, q); err != nil {
		return out, dbError(err)
	}
	if out.Offers, err = topOffers(ctx, t, businessID, q); err != nil {
		return out, dbError(err)
	}
	if out.Customers, err = topCustomers(ctx, t, businessID, q); err != nil {
		return out, dbError(err)
	}
	out.Activity, err = memberActivity(ctx, t, businessID, q)
	return out, dbError(err)
}

// MemberActivity reads what the members who came in a period did.
func (d *DB) MemberActivity(ctx context.Context, businessID string, q loyalty.InsightQuery) (loyalty.MemberActivity, error) {
	m, err := memberActivity(ctx, d.db, businessID, q)
	return m, dbError(err)
}

// TierMembers counts the live customers the tier keeper holds a row for
// in a program, by the level last announced (0 for none).
func (d *DB) TierMembers(ctx context.Context, businessID string, tierID int64) (map[int64]int64, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT COALESCE(ct.level_id, 0), COUNT(*) FROM customer_tiers ct
		JOIN customers c ON c.business_id = ct.business_id AND c.user_id = ct.customer_id
		WHERE ct.business_id = $1 AND ct.tier_id = $2 AND c.deleted_at IS NULL
		GROUP BY COALESCE(ct.level_id, 0)`, businessID, tierID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, dbError(err)
		}
		out[id] = n
	}
	return out, dbError(rows.Err())
}

// topRewards ranks the catalog items by the units redeemed.
func topRewards(ctx context.Context, q querier, businessID string, iq loyalty.InsightQuery) ([]loyalty.RankedReward, error) {
	where, args := insightScope(businessID, iq)
	rows, err := q.QueryContext(ctx, `SELECT i.reward_id, r.title, SUM(i.quantity) AS n
		FROM transactions t JOIN transaction_items i ON i.transaction_id = t.id JOIN rewards r ON r.id = i.reward_id
		WHERE`+where+` AND t.intent = '`+loyalty.IntentRedeem+`'
		GROUP BY i.reward_id, r.title ORDER BY n DESC, i.reward_id`+limit(iq.Limit), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.RankedReward
	for rows.Next() {
		var r loyalty.RankedReward
		if err := rows.Scan(&r.ID, &r.Title, &r.Redeemed); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// topOffers ranks the offers by their uses: the rewarded purchases they
// gave points to and the redemptions of their coupons.
func topOffers(ctx context.Context, q querier, businessID string, iq loyalty.InsightQuery) ([]loyalty.RankedOffer, error) {
	where, args := insightScope(businessID, iq)
	rows, err := q.QueryContext(ctx, `SELECT o.id, o.title, COUNT(*) AS n
		FROM transactions t LEFT JOIN coupons k ON k.id = t.coupon_id
			JOIN offers o ON o.id = COALESCE(k.offer_id, t.offer_id)
		WHERE`+where+` AND t.intent IN ('`+loyalty.IntentReward+`', '`+loyalty.IntentClaimCoupon+`')
		GROUP BY o.id, o.title ORDER BY n DESC, o.id`+limit(iq.Limit), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.RankedOffer
	for rows.Next() {
		var o loyalty.RankedOffer
		if err := rows.Scan(&o.ID, &o.Title, &o.Uses); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// perCustomer is a subquery of each customer's visits (v) and spend (s)
// in the period.
func perCustomer(where string) string {
	return `(SELECT t.customer_id, SUM(t.visits) AS v,
			SUM(CASE WHEN t.intent = '` + loyalty.IntentReward + `' THEN t.amount ELSE 0 END) AS s
		FROM transactions t WHERE` + where + ` GROUP BY t.customer_id) x`
}

// topCustomers ranks the live customers by their spend.
func topCustomers(ctx context.Context, q querier, businessID string, iq loyalty.InsightQuery) ([]loyalty.RankedCustomer, error) {
	where, args := insightScope(businessID, iq)
	rows, err := q.QueryContext(ctx, `SELECT x.customer_id, x.s, x.v, c.first_name, c.last_name, COALESCE(c.email, ''),
			COALESCE(c.phone, '')
		FROM `+perCustomer(where)+` JOIN customers c ON c.business_id = $1 AND c.user_id = x.customer_id
		WHERE x.s > 0 AND c.deleted_at IS NULL
		ORDER BY x.s DESC, x.customer_id`+limit(iq.Limit), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.RankedCustomer
	for rows.Next() {
		var c loyalty.RankedCustomer
		if err := rows.Scan(&c.ID, &c.Spend, &c.Visits, &c.FirstName, &c.LastName, &c.Email, &c.Phone); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// memberActivity counts the period's visitors, repeat visitors and
// spenders, and their spend.
func memberActivity(ctx context.Context, q querier, businessID string, iq loyalty.InsightQuery) (loyalty.MemberActivity, error) {
	where, args := insightScope(businessID, iq)
	var m loyalty.MemberActivity
	var spend sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT COUNT(CASE WHEN x.v > 0 THEN 1 END), COUNT(CASE WHEN x.v > 1 THEN 1 END),
			COUNT(CASE WHEN x.s > 0 THEN 1 END), SUM(CASE WHEN x.s > 0 THEN x.s ELSE 0 END)
		FROM `+perCustomer(where), args...).Scan(&m.Visitors, &m.Repeaters, &m.Spenders, &spend)
	m.Spend = loyalty.Money(spend.Int64)
	return m, err
}
