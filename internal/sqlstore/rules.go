package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Rules returns a business's earning rules, the defaults when never set.
func (t *tx) Rules(ctx context.Context, b loyalty.Business) (loyalty.Rules, error) {
	return rules(ctx, t.Tx, b)
}

// Rules returns a business's earning rules, the defaults when never set.
func (d *DB) Rules(ctx context.Context, b loyalty.Business) (loyalty.Rules, error) {
	return rules(ctx, d.db, b)
}

func rules(ctx context.Context, q querier, b loyalty.Business) (loyalty.Rules, error) {
	r := loyalty.DefaultRules(b.ID, b.LoyaltyType)
	err := q.QueryRowContext(ctx, `SELECT reward_ratio, reward_milestone_amount, round_up_points, welcome_points, points_per_visit
		FROM business_rules WHERE business_id = $1`, b.ID).Scan(&r.RewardRatio, &r.RewardMilestoneAmount, &r.RoundUpPoints,
		&r.WelcomePoints, &r.PointsPerVisit)
	if err == sql.ErrNoRows {
		return r, nil
	}
	return r, dbError(err)
}

// SaveRules stores a business's earning rules.
func (t *tx) SaveRules(ctx context.Context, r loyalty.Rules) error {
	t.accessChanged()
	_, err := t.ExecContext(ctx, `INSERT INTO business_rules (business_id, reward_ratio, reward_milestone_amount, round_up_points,
		welcome_points, points_per_visit, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (business_id) DO UPDATE SET reward_ratio = excluded.reward_ratio,
		reward_milestone_amount = excluded.reward_milestone_amount, round_up_points = excluded.round_up_points,
		welcome_points = excluded.welcome_points, points_per_visit = excluded.points_per_visit, updated_at = excluded.updated_at`,
		r.BusinessID, r.RewardRatio, r.RewardMilestoneAmount, r.RoundUpPoints, r.WelcomePoints, r.PointsPerVisit, t.now)
	return dbError(err)
}
