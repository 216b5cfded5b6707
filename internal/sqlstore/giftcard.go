package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

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

// Giftcard returns one gift card of a business that is not deleted, with
// its branches.
func (d *DB) Giftcard(ctx context.Context, businessID string, id int64) (loyalty.Giftcard, error) {
	g, err := giftcardByID(ctx, d.db, businessID, id)
	if err == nil && g.Deleted {
		err = loyalty.Errorf(loyalty.ENotFound, "Gift card not found.")
	}
	return g, err
}

// giftcardByID reads one gift card of a business, deleted or not, with its
// branches.
func giftcardByID(ctx context.Context, q querier, businessID string, id int64) (loyalty.Giftcard, error) {
	g, err := scanGiftcard(q.QueryRowContext(ctx, `SELECT `+giftcardColumns+` FROM giftcards g WHERE g.business_id = $1 AND g.id = $2`,
		businessID, id))
	if err != nil {
		return g, dbError(err)
	}
	list := []loyalty.Giftcard{g}
	err = withGiftcardBranches(ctx, q, list)
	return list[0], err
}

// withGiftcardBranches loads the branches of gift cards.
func withGiftcardBranches(ctx context.Context, q querier, cards []loyalty.Giftcard) error {
	ids := make([]int64, len(cards))
	for i, g := range cards {
		ids[i] = g.ID
	}
	branches, err := linkMap(ctx, q, "giftcard_branches", "giftcard_id", "branch_id", ids)
	if err != nil {
		return err
	}
	for i := range cards {
		cards[i].BranchIDs = branches[cards[i].ID]
	}
	return nil
}

// giftcardFilterColumns maps the filterable fields of GET /giftcards to SQL.
var giftcardFilterColumns = map[string]string{"created_at": "g.created_at", "updated_at": "g.updated_at"}

// Giftcards pages the gift cards of a business that are not deleted,
// oldest first.
func (d *DB) Giftcards(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Giftcard, int, error) {
	from, args, err := listWhere([]string{"g.business_id = $1", "g.deleted_at IS NULL"}, []any{businessID}, q, giftcardFilterColumns)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Giftcard
	total, err := d.listPage(ctx, giftcardColumns, `FROM giftcards g`+from, `g.id`, args, q, func(rows *sql.Rows) error {
		g, err := scanGiftcard(rows)
		out = append(out, g)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, withGiftcardBranches(ctx, d.db, out)
}

// InsertGiftcard stores a new gift card with its branches.
func (t *tx) InsertGiftcard(ctx context.Context, g *loyalty.Giftcard) error {
	err := t.QueryRowContext(ctx, `INSERT INTO giftcards (business_id, title, description, points, discount_value, real_value,
		multip_factor, images, enabled, expires_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		RETURNING id`, g.BusinessID, g.Title, g.Description, g.Points, g.DiscountValue, g.RealValue, g.MultipFactor,
		encodeImages(g.Images), g.Enabled, nullTime(g.ExpiresAt), g.CreatedAt.UTC(), g.UpdatedAt.UTC()).Scan(&g.ID)
	if err != nil {
		return dbError(err)
	}
	return setLinkRows(ctx, t.Tx, "giftcard_branches", "giftcard_id", "branch_id", g.ID, g.BranchIDs)
}

// UpdateGiftcard writes a gift card's fields and branches.
func (t *tx) UpdateGiftcard(ctx context.Context, g *loyalty.Giftcard) error {
	var deleted sql.NullTime
	if g.Deleted {
		deleted = nullTime(g.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE giftcards SET title = $1, description = $2, points = $3, discount_value = $4,
		real_value = $5, multip_factor = $6, images = $7, enabled = $8, expires_at = $9, deleted_at = $10, updated_at = $11
		WHERE business_id = $12 AND id = $13`,
		g.Title, g.Description, g.Points, g.DiscountValue, g.RealValue, g.MultipFactor, encodeImages(g.Images), g.Enabled,
		nullTime(g.ExpiresAt), deleted, g.UpdatedAt.UTC(), g.BusinessID, g.ID)
	if err != nil || g.Deleted {
		return dbError(err)
	}
	return setLinkRows(ctx, t.Tx, "giftcard_branches", "giftcard_id", "branch_id", g.ID, g.BranchIDs)
}
