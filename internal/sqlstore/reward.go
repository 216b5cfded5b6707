package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Reward returns one reward of a business that is not deleted, with its
// branches, targets and tier levels.
func (d *DB) Reward(ctx context.Context, businessID string, id int64) (loyalty.Reward, error) {
	r, err := scanReward(d.db.QueryRowContext(ctx, `SELECT `+rewardColumns+` FROM rewards r
		WHERE r.business_id = $1 AND r.id = $2 AND r.deleted_at IS NULL`, businessID, id))
	if err != nil {
		return r, dbError(err)
	}
	list := []loyalty.Reward{r}
	err = withRewardLinks(ctx, d.db, list)
	return list[0], err
}

// rewardFilterColumns maps the filterable fields of GET /rewards to SQL.
var rewardFilterColumns = map[string]string{"kind": "r.kind", "created_at": "r.created_at", "updated_at": "r.updated_at"}

// Rewards pages the rewards of a business that are not deleted, oldest
// first, with their links.
func (d *DB) Rewards(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Reward, int, error) {
	from, args, err := listWhere([]string{"r.business_id = $1", "r.deleted_at IS NULL"}, []any{businessID}, q, rewardFilterColumns)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Reward
	total, err := d.listPage(ctx, rewardColumns, `FROM rewards r`+from, `r.id`, args, q, func(rows *sql.Rows) error {
		r, err := scanReward(rows)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, withRewardLinks(ctx, d.db, out)
}

// withRewardLinks loads the branches, targets and tier levels of rewards.
func withRewardLinks(ctx context.Context, q querier, rewards []loyalty.Reward) error {
	ids := make([]int64, len(rewards))
	for i, r := range rewards {
		ids[i] = r.ID
	}
	branches, err := linkValues[string](ctx, q, "reward_branches", "reward_id", "branch_id", ids)
	if err != nil {
		return err
	}
	targets, err := linkValues[string](ctx, q, "reward_targets", "reward_id", "customer_id", ids)
	if err != nil {
		return err
	}
	levels, err := linkValues[int64](ctx, q, "reward_tiers", "reward_id", "tier_level_id", ids)
	if err != nil {
		return err
	}
	for i := range rewards {
		id := rewards[i].ID
		rewards[i].BranchIDs, rewards[i].TargetIDs, rewards[i].TierLevelIDs = branches[id], targets[id], levels[id]
	}
	return nil
}

// InsertReward stores a new reward with its links.
func (t *tx) InsertReward(ctx context.Context, r *loyalty.Reward) error {
	err := t.QueryRowContext(ctx, `INSERT INTO rewards (business_id, kind, title, description, points, partner_reward, images,
		enabled, expires_at, created_at, updated_at, type_id, amount, real_value, discount_value, redeem_for_gift_card, audience,
		starts_at, external_id, languages)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING id`,
		r.BusinessID, r.Kind, r.Title, r.Description, r.Points, r.PartnerReward, encodeImages(r.Images), r.Enabled,
		nullTime(r.ExpiresAt), r.CreatedAt.UTC(), r.UpdatedAt.UTC(), nullInt(int64(r.TypeID)), r.Amount, r.RealValue, r.DiscountValue,
		r.RedeemForGiftCard, r.Audience, nullTime(r.StartsAt), r.ExternalID, encodeTexts(r.Texts)).Scan(&r.ID)
	if err != nil {
		return dbError(err)
	}
	return t.rewardLinks(ctx, r)
}

// UpdateReward writes a reward's fields and links.
func (t *tx) UpdateReward(ctx context.Context, r *loyalty.Reward) error {
	var deleted sql.NullTime
	if r.Deleted {
		deleted = nullTime(r.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE rewards SET kind = $1, title = $2, description = $3, points = $4, partner_reward = $5,
		images = $6, enabled = $7, expires_at = $8, deleted_at = $9, updated_at = $10, type_id = $11, amount = $12, real_value = $13,
		discount_value = $14, redeem_for_gift_card = $15, audience = $16, starts_at = $17, external_id = $18, languages = $19
		WHERE business_id = $20 AND id = $21`,
		r.Kind, r.Title, r.Description, r.Points, r.PartnerReward, encodeImages(r.Images), r.Enabled, nullTime(r.ExpiresAt),
		deleted, r.UpdatedAt.UTC(), nullInt(int64(r.TypeID)), r.Amount, r.RealValue, r.DiscountValue, r.RedeemForGiftCard,
		r.Audience, nullTime(r.StartsAt), r.ExternalID, encodeTexts(r.Texts), r.BusinessID, r.ID)
	if err != nil || r.Deleted {
		// A deleted reward keeps its links, as past redemptions keep it.
		return dbError(err)
	}
	return t.rewardLinks(ctx, r)
}

func (t *tx) rewardLinks(ctx context.Context, r *loyalty.Reward) error {
	if err := setLinkValues(ctx, t.Tx, "reward_branches", "reward_id", "branch_id", r.ID, r.BranchIDs); err != nil {
		return err
	}
	if err := setLinkValues(ctx, t.Tx, "reward_targets", "reward_id", "customer_id", r.ID, r.TargetIDs); err != nil {
		return err
	}
	return setLinkValues(ctx, t.Tx, "reward_tiers", "reward_id", "tier_level_id", r.ID, r.TierLevelIDs)
}

const rewardColumns = `r.id, r.business_id, r.kind, r.title, r.description, r.points, r.partner_reward, r.images, r.enabled,
	r.expires_at, r.deleted_at, r.created_at, r.updated_at, r.type_id, r.amount, r.real_value, r.discount_value,
	r.redeem_for_gift_card, r.audience, r.starts_at, r.external_id, r.languages`

func scanReward(row scanner) (loyalty.Reward, error) {
	var r loyalty.Reward
	var images, texts string
	var expires, deleted, starts sql.NullTime
	var typeID sql.NullInt64
	err := row.Scan(&r.ID, &r.BusinessID, &r.Kind, &r.Title, &r.Description, &r.Points, &r.PartnerReward, &images, &r.Enabled,
		&expires, &deleted, &r.CreatedAt, &r.UpdatedAt, &typeID, &r.Amount, &r.RealValue, &r.DiscountValue,
		&r.RedeemForGiftCard, &r.Audience, &starts, &r.ExternalID, &texts)
	if err == sql.ErrNoRows {
		return r, loyalty.Errorf(loyalty.ENotFound, "Reward not found.")
	} else if err != nil {
		return r, err
	}
	r.ExpiresAt, r.Deleted, r.StartsAt, r.TypeID = expires.Time, deleted.Valid, starts.Time, int(typeID.Int64)
	if err := decodeTexts(texts, &r.Texts); err != nil {
		return r, err
	}
	return r, decodeImages(images, &r.Images)
}

// Reward returns one reward of a business, deleted or not, with its links.
func (t *tx) Reward(ctx context.Context, businessID string, id int64) (loyalty.Reward, error) {
	r, err := scanReward(t.QueryRowContext(ctx, `SELECT `+rewardColumns+` FROM rewards r WHERE r.business_id = $1 AND r.id = $2`, businessID, id))
	if err != nil {
		return r, dbError(err)
	}
	list := []loyalty.Reward{r}
	err = withRewardLinks(ctx, t.Tx, list)
	return list[0], err
}
