package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// InsertBasket writes the basket of an entry just appended: its row and
// its lines, in the order sent, each numbered by its Line, else by its
// place.
func (t *tx) InsertBasket(ctx context.Context, e *loyalty.Transaction) error {
	b := e.Basket
	if _, err := t.stmt(ctx, insertBasket).ExecContext(ctx, e.ID, e.BusinessID, b.Tax, b.Shipping, b.Channel, e.CreatedAt.UTC(),
		nullInt(b.ReturnsID)); err != nil {
		return dbError(err)
	}
	// The lines in statements of up to maxLinesInsert rows, whose texts
	// are fixed (prepared once on SQLite, cached by pgx on PostgreSQL).
	for start := 0; start < len(b.Lines); start += maxLinesInsert {
		chunk := b.Lines[start:min(start+maxLinesInsert, len(b.Lines))]
		args := make([]any, 0, 9*len(chunk))
		for i, l := range chunk {
			line := l.Line
			if line == 0 {
				line = start + i + 1
			}
			args = append(args, e.ID, line, l.SKU, nullInt(l.ProductID), nullInt(l.CategoryID), l.Quantity, l.Price, l.Discount, l.Points)
		}
		if _, err := t.stmt(ctx, insertBasketLines[len(chunk)]).ExecContext(ctx, args...); err != nil {
			return dbError(err)
		}
	}
	return nil
}

const (
	insertBasket = `INSERT INTO baskets (entry_id, business_id, tax, shipping, channel, created_at, returns_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
	maxLinesInsert = 16
)

// insertBasketLines[n] inserts n lines of a basket.
var insertBasketLines = func() []string {
	out := make([]string, maxLinesInsert+1)
	for n := 1; n <= maxLinesInsert; n++ {
		var rows strings.Builder
		for i := range n {
			if i > 0 {
				rows.WriteString(", ")
			}
			k := 9 * i
			fmt.Fprintf(&rows, "($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5, k+6, k+7, k+8, k+9)
		}
		out[n] = `INSERT INTO basket_lines (entry_id, line, sku, product_id, category_id, quantity, price, discount, points) VALUES ` + rows.String()
	}
	return out
}()

// Baskets returns the baskets of the entries of a business that have
// one, by entry id, their lines in order.
func (d *DB) Baskets(ctx context.Context, businessID string, ids []int64) (map[int64]*loyalty.Basket, error) {
	return baskets(ctx, d.db, businessID, ids)
}

// Baskets is DB.Baskets in the transaction.
func (t *tx) Baskets(ctx context.Context, businessID string, ids []int64) (map[int64]*loyalty.Basket, error) {
	return baskets(ctx, t.Tx, businessID, ids)
}

func baskets(ctx context.Context, q querier, businessID string, ids []int64) (map[int64]*loyalty.Basket, error) {
	out := map[int64]*loyalty.Basket{}
	if len(ids) == 0 {
		return out, nil
	}
	list, args := placeholders([]any{businessID}, ids)
	rows, err := q.QueryContext(ctx, `SELECT entry_id, tax, shipping, channel, returns_id FROM baskets
		WHERE business_id = $1 AND entry_id IN (`+list+`)`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	for rows.Next() {
		var id int64
		var returns sql.NullInt64
		b := &loyalty.Basket{Lines: []loyalty.BasketLine{}}
		if err := rows.Scan(&id, &b.Tax, &b.Shipping, &b.Channel, &returns); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		b.ReturnsID = returns.Int64
		out[id] = b
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, dbError(err)
	}
	list, args = placeholders(nil, ids)
	rows, err = q.QueryContext(ctx, `SELECT entry_id, line, sku, product_id, category_id, quantity, price, discount, points
		FROM basket_lines WHERE entry_id IN (`+list+`) ORDER BY entry_id, line`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var l loyalty.BasketLine
		var product, category sql.NullInt64
		if err := rows.Scan(&id, &l.Line, &l.SKU, &product, &category, &l.Quantity, &l.Price, &l.Discount, &l.Points); err != nil {
			return nil, dbError(err)
		}
		l.ProductID, l.CategoryID = product.Int64, category.Int64
		if b := out[id]; b != nil {
			b.Lines = append(b.Lines, l)
			if l.ProductID == 0 && !slices.Contains(b.UnknownSKUs, l.SKU) {
				b.UnknownSKUs = append(b.UnknownSKUs, l.SKU)
			}
		}
	}
	return out, dbError(rows.Err())
}

// ReturnBaskets returns the baskets of the returns by item of a reward.
func (t *tx) ReturnBaskets(ctx context.Context, businessID string, rewardID int64) (map[int64]*loyalty.Basket, error) {
	rows, err := t.QueryContext(ctx, `SELECT entry_id FROM baskets WHERE business_id = $1 AND returns_id = $2`, businessID, rewardID)
	if err != nil {
		return nil, dbError(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, dbError(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dbError(err)
	}
	return baskets(ctx, t.Tx, businessID, ids)
}

// LockEntry holds an entry's row until the transaction ends (on SQLite
// its one writer already does).
func (t *tx) LockEntry(ctx context.Context, businessID string, id int64) error {
	lock := ""
	if t.pg {
		lock = " FOR UPDATE"
	}
	var got int64
	return dbError(t.QueryRowContext(ctx, `SELECT id FROM transactions WHERE business_id = $1 AND id = $2`+lock, businessID, id).
		Scan(&got))
}

// ReversedBy returns the id of the entry that cancels entry id, or 0.
func (t *tx) ReversedBy(ctx context.Context, businessID string, id int64) (int64, error) {
	var by int64
	err := t.QueryRowContext(ctx, `SELECT id FROM transactions WHERE business_id = $1 AND reverses_id = $2`, businessID, id).Scan(&by)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return by, dbError(err)
}
