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
	return t.insertBaskets(ctx, []*loyalty.Transaction{e})
}

// insertBaskets writes the baskets of entries just appended as
// InsertBasket writes each, several rows a statement: the group writer
// writes a batch's baskets together (one statement for up to
// maxBasketsInsert rows, one for up to maxLinesInsert lines of any of
// them), where each basket was two statements of its own.
func (t *tx) insertBaskets(ctx context.Context, es []*loyalty.Transaction) error {
	for start := 0; start < len(es); start += maxBasketsInsert {
		chunk := es[start:min(start+maxBasketsInsert, len(es))]
		args := make([]any, 0, 7*len(chunk))
		for _, e := range chunk {
			b := e.Basket
			args = append(args, e.ID, e.BusinessID, b.Tax, b.Shipping, b.Channel, e.CreatedAt.UTC(), nullInt(b.ReturnsID))
		}
		if _, err := t.stmt(ctx, insertBaskets[len(chunk)]).ExecContext(ctx, args...); err != nil {
			return dbError(err)
		}
	}
	// The lines in statements of up to maxLinesInsert rows, whose texts
	// are fixed (prepared once on SQLite, cached by pgx on PostgreSQL).
	args := make([]any, 0, 9*maxLinesInsert)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		_, err := t.stmt(ctx, insertBasketLines[len(args)/9]).ExecContext(ctx, args...)
		args = args[:0]
		return dbError(err)
	}
	for _, e := range es {
		for i, l := range e.Basket.Lines {
			line := l.Line
			if line == 0 {
				line = i + 1
			}
			args = append(args, e.ID, line, l.SKU, nullInt(l.ProductID), nullInt(l.CategoryID), l.Quantity, l.Price, l.Discount, l.Points)
			if len(args) == 9*maxLinesInsert {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

const (
	maxBasketsInsert = 16
	maxLinesInsert   = 16
)

// insertBaskets[n] inserts n baskets' rows, and insertBasketLines[n] n
// lines of baskets.
var (
	insertBaskets     = valuesInserts(`INSERT INTO baskets (entry_id, business_id, tax, shipping, channel, created_at, returns_id) VALUES `, 7, maxBasketsInsert)
	insertBasketLines = valuesInserts(`INSERT INTO basket_lines (entry_id, line, sku, product_id, category_id, quantity, price, discount, points) VALUES `, 9, maxLinesInsert)
)

// valuesInserts[n] is valuesInsert(insert, cols, n), for n from 1 to max.
func valuesInserts(insert string, cols, max int) []string {
	out := make([]string, max+1)
	for n := 1; n <= max; n++ {
		out[n] = valuesInsert(insert, cols, n)
	}
	return out
}

// valuesInsert is insert followed by n rows of cols parameters each,
// numbered in order.
func valuesInsert(insert string, cols, n int) string {
	var rows strings.Builder
	rows.WriteString(insert)
	for i := range n {
		if i > 0 {
			rows.WriteString(", ")
		}
		rows.WriteByte('(')
		for j := range cols {
			if j > 0 {
				rows.WriteString(", ")
			}
			fmt.Fprintf(&rows, "$%d", i*cols+j+1)
		}
		rows.WriteByte(')')
	}
	return rows.String()
}

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
