package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// native runs fn on one of the pool's PostgreSQL connections through pgx
// itself, past database/sql: its rows are scanned straight into their
// destinations, with none of database/sql's per-column conversions (the
// driver's values boxed, then converted again by reflection). It is for
// the hottest reads, such as a customer's (GET /customers/{id}); the
// connection is database/sql's, so the pool, its limits and its
// statement cache are the same as every other statement's.
func (d *DB) native(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error { return fn(dc.(*stdlib.Conn).Conn()) })
}

// nativeRow is a pgx row that reports no row as database/sql does, so the
// scanners of this package serve both.
type nativeRow struct{ pgx.Row }

func (r nativeRow) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sql.ErrNoRows
	}
	return err
}
