package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// listPage counts the rows of from (a FROM clause with its WHERE, whose
// arguments are args) and reads one page of cols from them in order,
// calling scan for each row.
func (d *DB) listPage(ctx context.Context, cols, from, order string, args []any, q loyalty.ListQuery, scan func(*sql.Rows) error) (int, error) {
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) `+from, args...).Scan(&total); err != nil {
		return 0, dbError(err)
	}
	return total, d.pageRows(ctx, total, cols, from, order, args, q, scan)
}

// pageRows reads one page of the total rows of from, as listPage does
// once it has counted them.
func (d *DB) pageRows(ctx context.Context, total int, cols, from, order string, args []any, q loyalty.ListQuery, scan func(*sql.Rows) error) error {
	if total <= q.Offset() {
		return nil
	}
	n := len(args)
	rows, err := d.db.QueryContext(ctx, `SELECT `+cols+` `+from+fmt.Sprintf(` ORDER BY %s LIMIT $%d OFFSET $%d`, order, n+1, n+2),
		append(args, q.PerPage, q.Offset())...)
	return scanAll(rows, err, scan)
}

// pageRowsLate is pageRows for columns that cost a query each (a
// customer's expiring points): the page's rows of alias are cut first and
// the columns computed for them alone. Computed beside the rows instead,
// they are computed for every row the database sorts to find the page —
// all of a business's customers when it sorts rather than walks an index.
func (d *DB) pageRowsLate(ctx context.Context, total int, alias, cols, from, order string, args []any, q loyalty.ListQuery, scan func(*sql.Rows) error) error {
	if total <= q.Offset() {
		return nil
	}
	rows, err := d.db.QueryContext(ctx, latePage(alias, cols, from, order, len(args)), append(args, q.PerPage, q.Offset())...)
	return scanAll(rows, err, scan)
}

// latePage is the query of a page of from's rows of alias in order,
// limited and offset by the placeholders after the n arguments, with cols
// computed for the page's rows only (see pageRowsLate).
func latePage(alias, cols, from, order string, n int) string {
	return fmt.Sprintf(`SELECT %s FROM (SELECT %s.* %s ORDER BY %s LIMIT $%d OFFSET $%d) %s ORDER BY %s`,
		cols, alias, from, order, n+1, n+2, alias, order)
}

// scanAll scans every row of a query's result with scan.
func scanAll(rows *sql.Rows, err error, scan func(*sql.Rows) error) error {
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return dbError(err)
		}
	}
	return dbError(rows.Err())
}

// listWhere joins fixed conditions with the conditions of the list's filters.
func listWhere(fixed []string, args []any, q loyalty.ListQuery, columns map[string]string) (string, []any, error) {
	cond, args, err := filterSQL(q.Filters, columns, args)
	if err != nil {
		return "", nil, err
	}
	return ` WHERE ` + strings.Join(append(fixed, cond...), " AND "), args, nil
}

// placeholders returns "$k, $k+1, ..." for ids, appending them to args.
func placeholders[T any](args []any, ids []T) (string, []any) {
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = fmt.Sprintf("$%d", len(args))
	}
	return strings.Join(ph, ", "), args
}

// entriesByID is a FROM clause of the ledger entries (as t) with the
// given ids, which it takes as one parameter appended to args: the
// statement's text, and its prepared plan, are then the same for any
// number of ids (a page of events names hundreds of entries, which as one
// parameter each cost PostgreSQL more to parse and plan than to read).
// Each id is looked up by primary key whatever the planner's statistics
// say: on PostgreSQL a lateral lookup per id, which LIMIT 1 (the id is
// the key) keeps from being flattened into a join the planner may hash
// over the whole ledger (as it did t.id = ANY($n) at 20,000 entries);
// on SQLite the JSON array's values, taken first (CROSS JOIN), each find
// their row.
func entriesByID(dialect string, args []any, ids []int64) (string, []any) {
	n := len(args) + 1
	if dialect == Postgres {
		return fmt.Sprintf(`unnest($%d::bigint[]) AS k(id) CROSS JOIN LATERAL (SELECT * FROM transactions WHERE id = k.id LIMIT 1) AS t`, n),
			append(args, ids)
	}
	list := make([]byte, 0, 8*len(ids)+2)
	list = append(list, '[')
	for i, id := range ids {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, id, 10)
	}
	list = append(list, ']')
	return fmt.Sprintf(`json_each($%d) AS k CROSS JOIN transactions t ON t.id = k.value`, n), append(args, string(list))
}

// linkMap reads the (id, value) pairs of a link table for the given ids,
// such as the branches of some offers.
func linkMap(ctx context.Context, q querier, table, idCol, valCol string, ids []int64) (map[int64][]string, error) {
	return linkValues[string](ctx, q, table, idCol, valCol, ids)
}

// linkValues is linkMap for values of any type.
func linkValues[T any](ctx context.Context, q querier, table, idCol, valCol string, ids []int64) (map[int64][]T, error) {
	out := map[int64][]T{}
	if len(ids) == 0 {
		return out, nil
	}
	list, args := placeholders(nil, ids)
	rows, err := q.QueryContext(ctx, `SELECT `+idCol+`, `+valCol+` FROM `+table+` WHERE `+idCol+` IN (`+list+`) ORDER BY `+idCol+`, `+valCol, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v T
		if err := rows.Scan(&id, &v); err != nil {
			return nil, dbError(err)
		}
		out[id] = append(out[id], v)
	}
	return out, dbError(rows.Err())
}

// setLinkRows makes the link rows of id exactly values.
func setLinkRows(ctx context.Context, q querier, table, idCol, valCol string, id int64, values []string) error {
	return setLinkValues(ctx, q, table, idCol, valCol, id, values)
}

// setLinkValues is setLinkRows for values of any type.
func setLinkValues[T any](ctx context.Context, q querier, table, idCol, valCol string, id int64, values []T) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+idCol+` = $1`, id); err != nil {
		return dbError(err)
	}
	for _, v := range values {
		if _, err := q.ExecContext(ctx, `INSERT INTO `+table+` (`+idCol+`, `+valCol+`) VALUES ($1, $2)`, id, v); err != nil {
			return dbError(err)
		}
	}
	return nil
}
