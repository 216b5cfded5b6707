package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

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

// rulesColumns are the rules kept in business_rules (alias br, NULL when
// the business never changed them) and the business's time zone (alias
// b); rulesDest scans them.
const rulesColumns = `br.reward_ratio, br.reward_milestone_amount, br.round_up_points, br.welcome_points, br.points_per_visit,
	br.points_expire_unit, br.points_expire_count, br.pending_days, br.expiry_notice_days, br.redemption_ratio, br.redemption_amount,
	br.earning_exclude, br.transfer_max_points_per_day, b.time_zone, b.currency_code`

// storedRules receives rulesColumns.
type storedRules struct {
	ratio, milestone, welcome, perVisit, expireCount, pendingDays, noticeDays sql.NullInt64
	redemptionRatio, redemptionAmount, transferMax                            sql.NullInt64
	roundUp                                                                   sql.NullBool
	expireUnit, timeZone, currency, exclude                                   sql.NullString
}

func (s *storedRules) dest() []any {
	return []any{&s.ratio, &s.milestone, &s.roundUp, &s.welcome, &s.perVisit, &s.expireUnit, &s.expireCount, &s.pendingDays, &s.noticeDays,
		&s.redemptionRatio, &s.redemptionAmount, &s.exclude, &s.transferMax, &s.timeZone, &s.currency}
}

// into sets what was read on r, which holds the defaults.
func (s *storedRules) into(r *loyalty.Rules) {
	if s.timeZone.Valid {
		r.TimeZone = s.timeZone.String
	}
	r.Currency = s.currency.String
	if !s.ratio.Valid {
		return
	}
	r.RewardRatio, r.RewardMilestoneAmount = s.ratio.Int64, loyalty.Money(s.milestone.Int64)
	r.RoundUpPoints, r.WelcomePoints, r.PointsPerVisit = s.roundUp.Bool, s.welcome.Int64, s.perVisit.Int64
	r.PointsExpireAfter = loyalty.PointsExpiry{Unit: s.expireUnit.String, Count: int(s.expireCount.Int64)}
	r.PendingDays, r.ExpiryNoticeDays = int(s.pendingDays.Int64), int(s.noticeDays.Int64)
	r.Redemption = loyalty.PointValue{Points: s.redemptionRatio.Int64, Value: loyalty.Money(s.redemptionAmount.Int64)}
	r.TransferMaxPointsPerDay = s.transferMax.Int64
	if s.exclude.Valid {
		// Written by SaveRules from the same type; a row it did not write is NULL.
		_ = json.Unmarshal([]byte(s.exclude.String), &r.Exclude)
	}
}

func rules(ctx context.Context, q querier, b loyalty.Business) (loyalty.Rules, error) {
	r := loyalty.DefaultRules(b.ID, b.LoyaltyType)
	var s storedRules
	err := q.QueryRowContext(ctx, `SELECT `+rulesColumns+`
		FROM businesses b LEFT JOIN business_rules br ON br.business_id = b.id WHERE b.id = $1`, b.ID).Scan(s.dest()...)
	if err == sql.ErrNoRows {
		return r, nil
	}
	s.into(&r)
	return r, dbError(err)
}

// SaveRules stores a business's earning rules, its time zone and its currency.
func (t *tx) SaveRules(ctx context.Context, r loyalty.Rules) error {
	t.accessChanged()
	_, err := t.ExecContext(ctx, `INSERT INTO business_rules (business_id, reward_ratio, reward_milestone_amount, round_up_points,
		welcome_points, points_per_visit, points_expire_unit, points_expire_count, pending_days, updated_at, expiry_notice_days,
		redemption_ratio, redemption_amount, earning_exclude, transfer_max_points_per_day)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
		ON CONFLICT (business_id) DO UPDATE SET reward_ratio = excluded.reward_ratio,
		reward_milestone_amount = excluded.reward_milestone_amount, round_up_points = excluded.round_up_points,
		welcome_points = excluded.welcome_points, points_per_visit = excluded.points_per_visit,
		points_expire_unit = excluded.points_expire_unit, points_expire_count = excluded.points_expire_count,
		pending_days = excluded.pending_days, updated_at = excluded.updated_at, expiry_notice_days = excluded.expiry_notice_days,
		redemption_ratio = excluded.redemption_ratio, redemption_amount = excluded.redemption_amount,
		earning_exclude = excluded.earning_exclude, transfer_max_points_per_day = excluded.transfer_max_points_per_day`,
		r.BusinessID, r.RewardRatio, r.RewardMilestoneAmount, r.RoundUpPoints, r.WelcomePoints, r.PointsPerVisit,
		r.PointsExpireAfter.Unit, r.PointsExpireAfter.Count, r.PendingDays, t.now, r.ExpiryNoticeDays,
		r.Redemption.Points, r.Redemption.Value, encodeExclusions(r.Exclude), r.TransferMaxPointsPerDay)
	if err != nil {
		return dbError(err)
	}
	_, err = t.ExecContext(ctx, `UPDATE businesses SET time_zone = $1, currency_code = $2 WHERE id = $3
		AND (time_zone <> $1 OR currency_code <> $2)`, r.TimeZone, r.Currency, r.BusinessID)
	if err != nil || r.PointsExpireAfter.Never() {
		return dbError(err)
	}
	// From now on points may carry an expiry, and keep it whatever the
	// rules become: customer reads look for expiring lots for good.
	_, err = t.ExecContext(ctx, `UPDATE businesses SET points_may_expire = TRUE WHERE id = $1 AND NOT points_may_expire`, r.BusinessID)
	return dbError(err)
}

// encodeExclusions writes a business's earning exclusions as JSON.
func encodeExclusions(x loyalty.EarningExclusions) string {
	if x.Categories == nil {
		x.Categories = []int64{}
	}
	b, _ := json.Marshal(x)
	return string(b)
}
