package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// stmts caches prepared statements of the fixed queries on hot paths, so
// SQLite does not parse and plan them again on every request (parsing was a
// third of a read's CPU).
type stmts struct {
	m sync.Map // query string -> *sql.Stmt
}

// row runs a fixed query that returns one row, through a prepared statement.
func (d *DB) row(ctx context.Context, query string, args ...any) *sql.Row {
	if d.dialect == Postgres {
		// pgx already caches a prepared statement per connection.
		return d.db.QueryRowContext(ctx, query, args...)
	}
	st, err := d.prepared(ctx, query)
	if err != nil {
		return d.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// rows runs a fixed query returning rows, through a prepared statement.
// Only queries from a bounded set of strings may come here: each distinct
// string stays prepared for the life of the DB.
func (d *DB) rows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if d.dialect == Postgres {
		return d.db.QueryContext(ctx, query, args...)
	}
	st, err := d.prepared(ctx, query)
	if err != nil {
		return d.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (d *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	return d.stmts.prepare(ctx, d.db, query)
}

// writeStmt returns query prepared on SQLite's writer connection, once
// for the life of the DB; a transaction uses it through its StmtContext
// (a transaction's statements are otherwise parsed at every call). It is
// for the hot write paths' fixed queries, and must be called outside a
// transaction: preparing needs the writer connection a transaction holds.
func (d *DB) writeStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	return d.wstmts.prepare(ctx, d.wdb, query)
}

func (c *stmts) prepare(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	if st, ok := c.m.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.PrepareContext(context.WithoutCancel(ctx), positional(query))
	if err != nil {
		return nil, err
	}
	if prev, loaded := c.m.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// positional is query with its parameters written ?, when they are $1,
// $2, … $n each once and in that order outside quotes and comments (the
// arguments bind the same): SQLite names a numbered parameter, and the
// driver asks each one's name at every execution, a walk of the
// statement's names each (4 % of the group writer's CPU a basket reward,
// whose lines are 45 parameters). Any other query is returned as it is.
func positional(query string) string {
	var out strings.Builder
	next, last := 1, 0
	for i := 0; i < len(query); i++ {
		switch c := query[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(query[i+1:], c)
			if j < 0 {
				return query
			}
			i += j + 1 // a doubled quote is two quoted runs, one after the other
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				return query
			}
			i += j
		case c == '/' && strings.HasPrefix(query[i:], "/*"):
			j := strings.Index(query[i:], "*/")
			if j < 0 {
				return query
			}
			i += j + 1
		case c == ':' && strings.HasPrefix(query[i:], "::"):
			i++ // a cast
		case c == '?' || c == ':' || c == '@':
			return query // a parameter of another kind
		case c == '$':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			if query[i+1:j] != strconv.Itoa(next) {
				return query
			}
			out.WriteString(query[last:i])
			out.WriteByte('?')
			last, next, i = j, next+1, j-1
		}
	}
	if next == 1 {
		return query
	}
	out.WriteString(query[last:])
	return out.String()
}

func (d *DB) closeStmts() {
	for _, c := range []*stmts{&d.stmts, &d.wstmts} {
		c.m.Range(func(k, v any) bool {
			v.(*sql.Stmt).Close()
			return true
		})
	}
}

// stmt is query as a statement of the transaction: prepared once on
// SQLite, else parsed here (pgx keeps its own statement cache).
func (t *tx) stmt(ctx context.Context, query string) txStmt {
	if st, ok := t.prepared[query]; ok {
		return t.StmtContext(ctx, st)
	}
	if t.sqlite {
		if st, ok := t.later.m.Load(query); ok {
			return t.StmtContext(ctx, st.(*sql.Stmt))
		}
	}
	return rawStmt{t.Tx, query}
}

// txStmt is what runs a statement in a transaction.
type txStmt interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

// rawStmt is a query not prepared, run in its transaction.
type rawStmt struct {
	tx    *sql.Tx
	query string
}

func (r rawStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return r.tx.ExecContext(ctx, r.query, args...)
}

func (r rawStmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return r.tx.QueryRowContext(ctx, r.query, args...)
}

// txStatements prepares the statements every SQLite transaction may use
// on the writer, once; none before the tables exist (they are then parsed
// at each use, as on PostgreSQL).
func (d *DB) txStatements(ctx context.Context) map[string]*sql.Stmt {
	if d.dialect != SQLite {
		return nil
	}
	if m := d.txPrepared.Load(); m != nil {
		return *m
	}
	queries := append(slices.Clone(eventStatements), foldDay, foldVisit, insertLot)
	// A transaction writes one basket; the group writer prepares the
	// statements of several before its transaction (writeSQLite): under
	// the race detector each took 7 ms to prepare, for every database.
	queries = append(append(queries, insertBaskets[1]), insertBasketLines[1:]...)
	out := make(map[string]*sql.Stmt, len(queries))
	for _, q := range queries {
		st, err := d.writeStmt(ctx, q)
		if err != nil {
			return nil
		}
		out[q] = st
	}
	d.txPrepared.Store(&out)
	return out
}
