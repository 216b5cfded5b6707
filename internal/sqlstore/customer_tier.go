package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The tier keeper's rows (customer_tiers) and how far each program's
// period ends have been done (tiers.rolled_to, roll_after); see
// loyalty.TierKeepTx and migration 00023.

// LockTierRoll locks a program's row (a no-op update, which both engines
// support) and reads the program and its roll.
func (t *tx) LockTierRoll(ctx context.Context, businessID string, tierID int64) (loyalty.Tier, loyalty.TierRoll, error) {
	var r loyalty.TierRoll
	var rolled sql.NullTime
	err := t.QueryRowContext(ctx, `UPDATE tiers SET roll_after = roll_after WHERE business_id = $1 AND id = $2
		RETURNING rolled_to, roll_after`, businessID, tierID).Scan(&rolled, &r.After)
	if err == sql.ErrNoRows {
		return loyalty.Tier{}, r, loyalty.Errorf(loyalty.ENotFound, "Tier not found.")
	} else if err != nil {
		return loyalty.Tier{}, r, dbError(err)
	}
	if rolled.Valid {
		r.RolledTo = rolled.Time.UTC()
	}
	tr, err := oneTier(ctx, t.Tx, businessID, tierID)
	return tr, r, err
}

// SetTierRoll stores how far a program's period ends have been done.
func (t *tx) SetTierRoll(ctx context.Context, tierID int64, r loyalty.TierRoll) error {
	_, err := t.ExecContext(ctx, `UPDATE tiers SET rolled_to = $1, roll_after = $2 WHERE id = $3`,
		r.RolledTo.UTC(), r.After, tierID)
	return dbError(err)
}

// CustomerIDsAfter lists up to limit active customers of a business after
// an id, in id order: the primary key's range.
func (t *tx) CustomerIDsAfter(ctx context.Context, businessID, after string, limit int) ([]string, error) {
	return textColumn(ctx, t.Tx, `SELECT c.user_id FROM customers c WHERE c.business_id = $1 AND c.user_id > $2
		AND c.deleted_at IS NULL ORDER BY c.user_id LIMIT $3`, businessID, after, limit)
}

// TierTotalsOf sums each customer's tier totals in [from, to), in the
// transaction.
func (t *tx) TierTotalsOf(ctx context.Context, businessID string, ids []string, from, to time.Time) (map[string]loyalty.TierTotals, error) {
	return tierTotalsOf(ctx, t.Tx, businessID, ids, from, to)
}

// LatestEntry is a customer's latest entry whose intent is not one of
// skip, by creation time then id. The customer's entries are read first,
// by the customer's index: ordered by time, PostgreSQL's planner with
// stale statistics would walk the business's entries by its creation
// index (see tierTotalsSQL).
func (t *tx) LatestEntry(ctx context.Context, businessID, customerID string, skip []string) (int64, time.Time, error) {
	not, args := placeholders([]any{businessID, customerID}, skip)
	if len(skip) == 0 {
		not = "''"
	}
	var id int64
	var at sql.NullTime
	err := t.QueryRowContext(ctx, `WITH mine AS MATERIALIZED (
		SELECT id, intent, created_at FROM transactions WHERE business_id = $1 AND customer_id = $2)
	SELECT id, created_at FROM mine WHERE intent NOT IN (`+not+`) ORDER BY created_at DESC, id DESC LIMIT 1`, args...).Scan(&id, &at)
	if err == sql.ErrNoRows {
		return 0, time.Time{}, nil
	}
	return id, at.Time.UTC(), dbError(err)
}

// CustomerTiers reads the keeper's rows of these customers in a program.
func (d *DB) CustomerTiers(ctx context.Context, businessID string, tierID int64, ids []string) (map[string]loyalty.CustomerTier, error) {
	return customerTiers(ctx, d.db, businessID, tierID, ids)
}

// CustomerTiers reads the keeper's rows of these customers in a program.
func (t *tx) CustomerTiers(ctx context.Context, businessID string, tierID int64, ids []string) (map[string]loyalty.CustomerTier, error) {
	return customerTiers(ctx, t.Tx, businessID, tierID, ids)
}

func customerTiers(ctx context.Context, q querier, businessID string, tierID int64, ids []string) (map[string]loyalty.CustomerTier, error) {
	out := map[string]loyalty.CustomerTier{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := placeholders([]any{businessID, tierID}, ids)
	rows, err := q.QueryContext(ctx, `SELECT customer_id, level_id, floor_level_id, floor_from, previous_level_id, changed_at FROM customer_tiers
		WHERE business_id = $1 AND tier_id = $2 AND customer_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var level, floor, previous sql.NullInt64
		var from, changed sql.NullTime
		if err := rows.Scan(&id, &level, &floor, &from, &previous, &changed); err != nil {
			return nil, dbError(err)
		}
		ct := loyalty.CustomerTier{Known: true, LevelID: level.Int64, FloorID: floor.Int64, PreviousID: previous.Int64}
		if from.Valid {
			ct.FloorFrom = from.Time.UTC()
		}
		if changed.Valid {
			ct.ChangedAt = changed.Time.UTC()
		}
		out[id] = ct
	}
	return out, dbError(rows.Err())
}

// PutCustomerTier writes the keeper's row of a customer in a program.
func (t *tx) PutCustomerTier(ctx context.Context, businessID string, tierID int64, customerID string, ct loyalty.CustomerTier) error {
	var from, changed any
	if !ct.FloorFrom.IsZero() {
		from = ct.FloorFrom.UTC()
	}
	if !ct.ChangedAt.IsZero() {
		changed = ct.ChangedAt.UTC()
	}
	_, err := t.ExecContext(ctx, `INSERT INTO customer_tiers (business_id, customer_id, tier_id, level_id, floor_level_id, floor_from,
		previous_level_id, changed_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (business_id, tier_id, customer_id) DO UPDATE SET level_id = excluded.level_id,
		floor_level_id = excluded.floor_level_id, floor_from = excluded.floor_from,
		previous_level_id = excluded.previous_level_id, changed_at = excluded.changed_at, updated_at = excluded.updated_at`,
		businessID, customerID, tierID, nullInt(ct.LevelID), nullInt(ct.FloorID), from, nullInt(ct.PreviousID), changed, t.now)
	return dbError(err)
}

// TiersToRoll lists the live businesses whose enabled calendar program
// was last taken into a period that began before since, or never.
func (d *DB) TiersToRoll(ctx context.Context, since time.Time, limit int) ([]string, error) {
	return textColumn(ctx, d.db, `SELECT t.business_id FROM tiers t JOIN businesses b ON b.id = t.business_id
		WHERE t.enabled AND t.reset_type = $1 AND (t.rolled_to IS NULL OR t.rolled_to < $2) AND NOT b.sandbox
		ORDER BY t.business_id LIMIT $3`, loyalty.TierResetCalendar, since.UTC(), limit)
}

// textColumn runs a query of one text column and returns its values.
func textColumn(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	return column[string](ctx, q, query, args...)
}

// column runs a query of one column and returns its values.
func column[T any](ctx context.Context, q querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, dbError(err)
		}
		out = append(out, v)
	}
	return out, dbError(rows.Err())
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
	rows, err := q.QueryContext(ctx, tierTotalsSQL(in), args...)
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

// tierTotalsSQL sums the tier totals of the customers whose ids are the
// placeholders in ($4 on), in [$2, $3). The customers' entries are read
// first, by the customers' index, and only then kept to the period: given
// the business and the period together, PostgreSQL's planner, with
// statistics older than the ledger (a table never analysed, autovacuum
// off, a bulk load), walked every entry of the business in the period by
// its creation index to find a customer's few
// (TestTierTotalsReadTheirCustomers).
func tierTotalsSQL(in string) string {
	return `WITH mine AS MATERIALIZED (
		SELECT customer_id, tier_amount, tier_points, visits, created_at FROM transactions
		WHERE business_id = $1 AND customer_id IN (` + in + `))
	SELECT customer_id, COALESCE(SUM(tier_amount), 0), COALESCE(SUM(tier_points), 0), COALESCE(SUM(visits), 0)
	FROM mine WHERE created_at >= $2 AND created_at < $3 GROUP BY customer_id`
}
