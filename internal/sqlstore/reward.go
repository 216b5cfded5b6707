package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Reward returns one reward of a business that is not deleted.
func (d *DB) Reward(ctx context.Context, businessID string, id int64) (loyalty.Reward, error) {
	r, err := scanReward(d.db.QueryRowContext(ctx, `SELECT `+rewardColumns+` FROM rewards r
		WHERE r.business_id = $1 AND r.id = $2 AND r.deleted_at IS NULL`, businessID, id))
	return r, dbError(err)
}

// rewardFilterColumns maps the filterable fields of GET /rewards to SQL.
var rewardFilterColumns = map[string]string{"kind": "r.kind", "created_at": "r.created_at", "updated_at": "r.updated_at"}

// Rewards pages the rewards of a business that are not deleted, oldest first.
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
	return out, total, err
}

// InsertReward stores a new reward.
func (t *tx) InsertReward(ctx context.Context, r *loyalty.Reward) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO rewards (business_id, kind, title, description, points, partner_reward, images,
		enabled, expires_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		r.BusinessID, r.Kind, r.Title, r.Description, r.Points, r.PartnerReward, encodeImages(r.Images), r.Enabled,
		nullTime(r.ExpiresAt), r.CreatedAt.UTC(), r.UpdatedAt.UTC()).Scan(&r.ID))
}

// UpdateReward writes a reward's fields.
func (t *tx) UpdateReward(ctx context.Context, r *loyalty.Reward) error {
	var deleted sql.NullTime
	if r.Deleted {
		deleted = nullTime(r.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE rewards SET kind = $1, title = $2, description = $3, points = $4, partner_reward = $5,
		images = $6, enabled = $7, expires_at = $8, deleted_at = $9, updated_at = $10 WHERE business_id = $11 AND id = $12`,
		r.Kind, r.Title, r.Description, r.Points, r.PartnerReward, encodeImages(r.Images), r.Enabled, nullTime(r.ExpiresAt),
		deleted, r.UpdatedAt.UTC(), r.BusinessID, r.ID)
	return dbError(err)
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
