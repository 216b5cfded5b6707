package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// tierSelect reads programs with their levels, one row per level (or one
// row with NULL level columns for a program without levels).
const tierSelect = `SELECT t.id, t.business_id, t.tiers_sequence, t.tiers_relation, t.reset_type, t.reset_period_month,
	t.base_previous_period, t.downgrade_policy, t.enabled, l.id, l.name, l.reach_spend, l.reach_visits, l.reach_points,
	(SELECT b.time_zone FROM businesses b WHERE b.id = t.business_id)
	FROM tiers t LEFT JOIN tier_levels l ON l.tier_id = t.id
	WHERE t.business_id = $1`

// queryTiers runs a tierSelect query and groups its rows by program.
func queryTiers(ctx context.Context, q querier, query string, args ...any) ([]loyalty.Tier, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Tier
	for rows.Next() {
		var t loyalty.Tier
		var lid, spend, visits, points sql.NullInt64
		var name sql.NullString
		var seq string
		if err := rows.Scan(&t.ID, &t.BusinessID, &seq, &t.TiersRelation, &t.ResetType, &t.ResetPeriodMonth,
			&t.BasePreviousPeriod, &t.DowngradePolicy, &t.Enabled, &lid, &name, &spend, &visits, &points, &t.TimeZone); err != nil {
			return nil, dbError(err)
		}
		if len(out) == 0 || out[len(out)-1].ID != t.ID {
			if seq != "" {
				t.Sequence = strings.Split(seq, ",")
			}
			out = append(out, t)
		}
		if lid.Valid {
			last := &out[len(out)-1]
			last.Levels = append(last.Levels, loyalty.TierLevel{ID: lid.Int64, Name: name.String,
				ReachSpend: loyalty.Money(spend.Int64), ReachVisits: visits.Int64, ReachPoints: points.Int64})
		}
	}
	return out, dbError(rows.Err())
}

// oneTier reads one program of a business.
func oneTier(ctx context.Context, q querier, businessID string, id int64) (loyalty.Tier, error) {
	list, err := queryTiers(ctx, q, tierSelect+` AND t.id = $2 ORDER BY l.position, l.id`, businessID, id)
	if err != nil {
		return loyalty.Tier{}, err
	}
	if len(list) == 0 {
		return loyalty.Tier{}, loyalty.Errorf(loyalty.ENotFound, "Tier not found.")
	}
	return list[0], nil
}

// Tiers lists the tier programs of a business with their levels.
func (d *DB) Tiers(ctx context.Context, businessID string) ([]loyalty.Tier, error) {
	return queryTiers(ctx, d.db, tierSelect+` ORDER BY t.id, l.position, l.id`, businessID)
}

// Tiers lists the tiers of a business with their levels, in the
// transaction.
func (t *tx) Tiers(ctx context.Context, businessID string) ([]loyalty.Tier, error) {
	return queryTiers(ctx, t.Tx, tierSelect+` ORDER BY t.id, l.position, l.id`, businessID)
}

// TierPage pages the tier programs of a business, oldest first, with
// their levels.
func (d *DB) TierPage(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Tier, int, error) {
	var ids []int64
	total, err := d.listPage(ctx, `id`, `FROM tiers WHERE business_id = $1`, `id`, []any{businessID}, q,
		func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			ids = append(ids, id)
			return err
		})
	if err != nil || len(ids) == 0 {
		return nil, total, err
	}
	in, args := placeholders([]any{businessID}, ids)
	list, err := queryTiers(ctx, d.db, tierSelect+` AND t.id IN (`+in+`) ORDER BY t.id, l.position, l.id`, args...)
	return list, total, err
}

// Tier returns one tier program of a business with its levels.
func (d *DB) Tier(ctx context.Context, businessID string, id int64) (loyalty.Tier, error) {
	return oneTier(ctx, d.db, businessID, id)
}

// Tier returns one tier program of a business with its levels.
func (t *tx) Tier(ctx context.Context, businessID string, id int64) (loyalty.Tier, error) {
	return oneTier(ctx, t.Tx, businessID, id)
}

// LockPrograms takes the business's row lock (a no-op update, which both
// engines support), so that changes to its programs run one at a time.
func (t *tx) LockPrograms(ctx context.Context, businessID string) error {
	res, err := t.ExecContext(ctx, `UPDATE businesses SET updated_at = updated_at WHERE id = $1`, businessID)
	if err != nil {
		return dbError(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return loyalty.Errorf(loyalty.ENotFound, "Business not found.")
	}
	return nil
}

// InsertTier stores a new program and its levels.
func (t *tx) InsertTier(ctx context.Context, tr *loyalty.Tier) error {
	err := t.QueryRowContext(ctx, `INSERT INTO tiers (business_id, tiers_sequence, tiers_relation, reset_type, reset_period_month,
		base_previous_period, downgrade_policy, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		RETURNING id`,
		tr.BusinessID, strings.Join(tr.Sequence, ","), tr.TiersRelation, tr.ResetType, tr.ResetPeriodMonth, tr.BasePreviousPeriod,
		policyOf(*tr), tr.Enabled, t.now, t.now).Scan(&tr.ID)
	if err != nil {
		return dbError(err)
	}
	for i := range tr.Levels {
		if err := t.insertLevel(ctx, tr.ID, i, &tr.Levels[i]); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) insertLevel(ctx context.Context, tierID int64, position int, l *loyalty.TierLevel) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO tier_levels (tier_id, name, reach_spend, reach_visits, reach_points, position)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, tierID, l.Name, l.ReachSpend, l.ReachVisits, l.ReachPoints, position).Scan(&l.ID))
}

// UpdateTier stores a program's fields and replaces its levels.
func (t *tx) UpdateTier(ctx context.Context, tr *loyalty.Tier) error {
	if _, err := t.ExecContext(ctx, `UPDATE tiers SET tiers_relation = $1, reset_type = $2, reset_period_month = $3,
		base_previous_period = $4, enabled = $5, updated_at = $6, tiers_sequence = $7, downgrade_policy = $8
		WHERE business_id = $9 AND id = $10`,
		tr.TiersRelation, tr.ResetType, tr.ResetPeriodMonth, tr.BasePreviousPeriod, tr.Enabled, t.now,
		strings.Join(tr.Sequence, ","), policyOf(*tr), tr.BusinessID, tr.ID); err != nil {
		return dbError(err)
	}
	old, err := oneTier(ctx, t.Tx, tr.BusinessID, tr.ID)
	if err != nil {
		return err
	}
	kept := map[int64]bool{}
	for _, l := range tr.Levels {
		kept[l.ID] = l.ID != 0
	}
	for _, l := range old.Levels {
		if kept[l.ID] {
			continue
		}
		if _, err := t.ExecContext(ctx, `DELETE FROM tier_levels WHERE tier_id = $1 AND id = $2`, tr.ID, l.ID); err != nil {
			return dbError(err)
		}
	}
	for i := range tr.Levels {
		l := &tr.Levels[i]
		if l.ID == 0 {
			if err := t.insertLevel(ctx, tr.ID, i, l); err != nil {
				return err
			}
			continue
		}
		if _, err := t.ExecContext(ctx, `UPDATE tier_levels SET name = $1, reach_spend = $2, reach_visits = $3, reach_points = $4,
			position = $5 WHERE tier_id = $6 AND id = $7`, l.Name, l.ReachSpend, l.ReachVisits, l.ReachPoints, i, tr.ID, l.ID); err != nil {
			return dbError(err)
		}
	}
	return nil
}

// policyOf is a program's downgrade policy, recompute when unset.
func policyOf(t loyalty.Tier) string {
	if t.DowngradePolicy == "" {
		return loyalty.DowngradeRecompute
	}
	return t.DowngradePolicy
}

// DisableTiers disables every program of the business but exceptID.
func (t *tx) DisableTiers(ctx context.Context, businessID string, exceptID int64) error {
	_, err := t.ExecContext(ctx, `UPDATE tiers SET enabled = FALSE, updated_at = $1 WHERE business_id = $2 AND enabled AND id <> $3`,
		t.now, businessID, exceptID)
	return dbError(err)
}
