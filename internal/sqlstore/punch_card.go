package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const punchCardColumns = `c.id, c.business_id, c.name, c.stamps_required, c.qualifies, c.reward_offer_id, c.enabled, c.deleted_at,
	c.created_at, c.updated_at`

func scanPunchCard(row scanner) (loyalty.PunchCard, error) {
	var c loyalty.PunchCard
	var qualifies string
	var deleted sql.NullTime
	err := row.Scan(&c.ID, &c.BusinessID, &c.Name, &c.StampsRequired, &qualifies, &c.RewardOfferID, &c.Enabled, &deleted,
		&c.CreatedAt, &c.UpdatedAt)
	if err == sql.ErrNoRows {
		return c, loyalty.Errorf(loyalty.ENotFound, "Punch card not found.")
	} else if err != nil {
		return c, err
	}
	c.Deleted = deleted.Valid
	return c, json.Unmarshal([]byte(qualifies), &c.Qualifies)
}

// PunchCard returns one card of a business, deleted or not.
func (d *DB) PunchCard(ctx context.Context, businessID string, id int64) (loyalty.PunchCard, error) {
	c, err := scanPunchCard(d.db.QueryRowContext(ctx, `SELECT `+punchCardColumns+` FROM punch_cards c
		WHERE c.business_id = $1 AND c.id = $2`, businessID, id))
	return c, dbError(err)
}

// PunchCard is DB.PunchCard in the transaction.
func (t *tx) PunchCard(ctx context.Context, businessID string, id int64) (loyalty.PunchCard, error) {
	c, err := scanPunchCard(t.QueryRowContext(ctx, `SELECT `+punchCardColumns+` FROM punch_cards c
		WHERE c.business_id = $1 AND c.id = $2`, businessID, id))
	return c, dbError(err)
}

// PunchCardPage pages the live cards of a business, oldest first.
func (d *DB) PunchCardPage(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.PunchCard, int, error) {
	from, args, err := listWhere([]string{"c.business_id = $1", "c.deleted_at IS NULL"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	out := []loyalty.PunchCard{}
	total, err := d.listPage(ctx, punchCardColumns, `FROM punch_cards c`+from, `c.id`, args, q, func(rows *sql.Rows) error {
		c, err := scanPunchCard(rows)
		out = append(out, c)
		return err
	})
	return out, total, err
}

// PunchCards returns every live card of a business, oldest first.
func (d *DB) PunchCards(ctx context.Context, businessID string) ([]loyalty.PunchCard, error) {
	return punchCards(ctx, d.db, businessID)
}

// PunchCards is DB.PunchCards in the transaction.
func (t *tx) PunchCards(ctx context.Context, businessID string) ([]loyalty.PunchCard, error) {
	return punchCards(ctx, t.Tx, businessID)
}

func punchCards(ctx context.Context, q querier, businessID string) ([]loyalty.PunchCard, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+punchCardColumns+` FROM punch_cards c
		WHERE c.business_id = $1 AND c.deleted_at IS NULL ORDER BY c.id`, businessID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := []loyalty.PunchCard{}
	for rows.Next() {
		c, err := scanPunchCard(rows)
		if err != nil {
			return nil, dbError(err)
		}
		out = append(out, c)
	}
	return out, dbError(rows.Err())
}

// InsertPunchCard stores a new card.
func (t *tx) InsertPunchCard(ctx context.Context, c *loyalty.PunchCard) error {
	t.accessChanged() // whether the business has punch cards, and which
	q, _ := json.Marshal(c.Qualifies)
	return dbError(t.QueryRowContext(ctx, `INSERT INTO punch_cards (business_id, name, stamps_required, qualifies, reward_offer_id,
		enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`, c.BusinessID, c.Name, c.StampsRequired,
		string(q), c.RewardOfferID, c.Enabled, c.CreatedAt.UTC(), c.UpdatedAt.UTC()).Scan(&c.ID))
}

// UpdatePunchCard writes every field of a card, or stamps it deleted.
func (t *tx) UpdatePunchCard(ctx context.Context, c *loyalty.PunchCard) error {
	t.accessChanged()
	q, _ := json.Marshal(c.Qualifies)
	var deleted sql.NullTime
	if c.Deleted {
		deleted = nullTime(c.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE punch_cards SET name = $1, stamps_required = $2, qualifies = $3, reward_offer_id = $4,
		enabled = $5, deleted_at = $6, updated_at = $7 WHERE business_id = $8 AND id = $9`, c.Name, c.StampsRequired, string(q),
		c.RewardOfferID, c.Enabled, deleted, c.UpdatedAt.UTC(), c.BusinessID, c.ID)
	return dbError(err)
}

// AddStamps keeps the stamps an entry gave a card and adds them to the
// customer's, returning the stamps the card then holds: one upsert, which
// concurrent stamps of the card wait on.
func (t *tx) AddStamps(ctx context.Context, cardID int64, customerID string, entryID, n int64, at time.Time) (int64, error) {
	if _, err := t.ExecContext(ctx, `INSERT INTO punch_stamps (entry_id, card_id, customer_id, stamps, created_at)
		VALUES ($1, $2, $3, $4, $5)`, entryID, cardID, customerID, n, at.UTC()); err != nil {
		return 0, dbError(err)
	}
	var total int64
	err := t.QueryRowContext(ctx, `INSERT INTO punch_progress (card_id, customer_id, stamps, completed, updated_at)
		VALUES ($1, $2, $3, 0, $4) ON CONFLICT (card_id, customer_id) DO UPDATE SET stamps = punch_progress.stamps + $3,
		updated_at = $4 RETURNING stamps`, cardID, customerID, n, at.UTC()).Scan(&total)
	return total, dbError(err)
}

// SetStamps sets the stamps a customer's card holds and adds to the times
// it was completed.
func (t *tx) SetStamps(ctx context.Context, cardID int64, customerID string, stamps, completed int64) error {
	_, err := t.ExecContext(ctx, `UPDATE punch_progress SET stamps = $1, completed = completed + $2 WHERE card_id = $3 AND customer_id = $4`,
		stamps, completed, cardID, customerID)
	return dbError(err)
}

// PunchProgress returns a customer's progress on the cards of a business.
func (d *DB) PunchProgress(ctx context.Context, businessID, customerID string) (map[int64]loyalty.PunchProgress, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT p.card_id, p.stamps, p.completed FROM punch_progress p
		JOIN punch_cards c ON c.id = p.card_id WHERE c.business_id = $1 AND p.customer_id = $2`, businessID, customerID)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := map[int64]loyalty.PunchProgress{}
	for rows.Next() {
		var p loyalty.PunchProgress
		if err := rows.Scan(&p.CardID, &p.Stamps, &p.Completed); err != nil {
			return nil, dbError(err)
		}
		out[p.CardID] = p
	}
	return out, dbError(rows.Err())
}

// EntryStamps returns the stamps each of the entries gave, by entry and
// card.
func (t *tx) EntryStamps(ctx context.Context, entryIDs []int64) (map[int64]map[int64]int64, error) {
	out := map[int64]map[int64]int64{}
	if len(entryIDs) == 0 {
		return out, nil
	}
	list, args := placeholders(nil, entryIDs)
	rows, err := t.QueryContext(ctx, `SELECT entry_id, card_id, stamps FROM punch_stamps WHERE entry_id IN (`+list+`)`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var entry, card, n int64
		if err := rows.Scan(&entry, &card, &n); err != nil {
			return nil, dbError(err)
		}
		if out[entry] == nil {
			out[entry] = map[int64]int64{}
		}
		out[entry][card] = n
	}
	return out, dbError(rows.Err())
}
