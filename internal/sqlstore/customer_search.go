package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The console's customer search, and the exports' reads of customers and
// ledger entries, which stream the rows instead of holding them.

// likePrefix is a LIKE pattern matching strings that start with p.
func likePrefix(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(p) + "%"
}

// customerSearch is the FROM clause, with its WHERE, of the active
// customers of a business matching f, and its arguments.
//
// On PostgreSQL a prefix is matched as the business id, a space and the
// prefix against the expression its index keys (see migration 00022),
// so that the index serves the search and nothing else.
func customerSearch(dialect, businessID string, f loyalty.CustomerFilter) (string, []any) {
	conds := []string{"c.business_id = $1", activeCustomers(dialect)}
	args := []any{businessID}
	ph := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	// like matches expr's start against prefix.
	like := func(expr, prefix string) string {
		if dialect == Postgres {
			return `(c.business_id || ' ' || ` + expr + `) LIKE ` + ph(likePrefix(businessID+" "+prefix)) + ` ESCAPE '\'`
		}
		return expr + ` LIKE ` + ph(likePrefix(prefix)) + ` ESCAPE '\'`
	}
	if f.NamePrefix != "" {
		conds = append(conds, `(`+like(`lower(c.first_name || ' ' || c.last_name)`, f.NamePrefix)+` OR `+like(`lower(c.last_name)`, f.NamePrefix)+`)`)
	}
	if f.EmailPrefix != "" {
		conds = append(conds, like(`c.email`, f.EmailPrefix))
	}
	if len(f.PhonePrefixes) > 0 {
		var or []string
		for _, p := range f.PhonePrefixes {
			or = append(or, like(`c.phone`, p))
		}
		conds = append(conds, "("+strings.Join(or, " OR ")+")")
	}
	if f.Enabled != nil {
		conds = append(conds, "c.enabled = "+ph(*f.Enabled))
	}
	if !f.JoinedFrom.IsZero() {
		conds = append(conds, "c.created_at >= "+ph(f.JoinedFrom.UTC()))
	}
	if !f.JoinedBefore.IsZero() {
		conds = append(conds, "c.created_at < "+ph(f.JoinedBefore.UTC()))
	}
	return ` FROM customers c WHERE ` + strings.Join(conds, " AND "), args
}

// SearchCustomers pages the active customers of a business matching f,
// newest first, with the total that match.
func (d *DB) SearchCustomers(ctx context.Context, businessID string, f loyalty.CustomerFilter, offset, limit int) ([]loyalty.Customer, int, error) {
	from, args := customerSearch(d.dialect, businessID, f)
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, dbError(err)
	}
	if total <= offset {
		return nil, total, nil
	}
	var out []loyalty.Customer
	n := len(args)
	err := each(ctx, d, latePage("c", customerColumns(d.dialect), from, "c.created_at DESC, c.user_id DESC", n),
		append(args, limit, offset), scanCustomer, func(c loyalty.Customer) error {
			out = append(out, c)
			return nil
		})
	return out, total, err
}

// EachCustomer calls fn for each active customer of a business matching
// f, oldest first, as the database returns them: an export never holds
// them all.
func (d *DB) EachCustomer(ctx context.Context, businessID string, f loyalty.CustomerFilter, fn func(loyalty.Customer) error) error {
	from, args := customerSearch(d.dialect, businessID, f)
	return each(ctx, d, `SELECT `+customerColumns(d.dialect)+from+` ORDER BY c.created_at, c.user_id`, args, scanCustomer, fn)
}

// EachTransaction calls fn for each ledger entry of a business made in
// [from, to) (zero times: no bound), in the order they were written.
func (d *DB) EachTransaction(ctx context.Context, businessID string, from, to time.Time, fn func(loyalty.Transaction) error) error {
	conds, args := "t.business_id = $1", []any{businessID}
	if !from.IsZero() {
		args = append(args, from.UTC())
		conds += fmt.Sprintf(" AND t.created_at >= $%d", len(args))
	}
	if !to.IsZero() {
		args = append(args, to.UTC())
		conds += fmt.Sprintf(" AND t.created_at < $%d", len(args))
	}
	return each(ctx, d, `SELECT `+transactionColumns+` FROM transactions t WHERE `+conds+` ORDER BY t.id`, args, scanTransaction, fn)
}

// each runs a query and calls fn with each row as scan reads it.
func each[T any](ctx context.Context, d *DB, query string, args []any, scan func(scanner) (T, error), fn func(T) error) error {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return dbError(err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return dbError(rows.Err())
}
