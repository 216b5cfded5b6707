package sqlstore

import (
	"context"
	"database/sql/driver"
	"time"

	"github.com/jackc/pgx/v5"
)

// How plans stay fresh on PostgreSQL.
//
// pgx prepares each statement on each connection once (its statement
// cache), and after five runs PostgreSQL keeps a prepared statement's
// generic plan for the connection's life. The foreign-key checks of every
// insert (the ledger's lots name their entry, say) are prepared plans of
// the backend too. A plan keeps the table sizes of the moment it was
// made: one made while a table was small, or while its statistics said so
// (ANALYZE of an empty table, autovacuum off), reads the whole table where
// it should walk its key, for as long as the connection lives, however
// big the table grows. The statistics never catch up by themselves here,
// and a new plan takes the table's current number of pages, so
// DISCARD PLANS, every planAge on each connection, is enough: the next
// runs of each statement plan again at today's size.
//
// The pool's connections discard theirs when handed out (stalePlans, from
// database/sql's session reset and the pool's PrepareConn); the group
// writer's connection every replanAfter (batchConn). Behind a transaction
// pooler (exec mode) statements are not kept from one run to the next,
// and a DISCARD would reach whichever server connection the pooler picks:
// the pooler's own server_lifetime bounds the age of the foreign-key
// checks' plans there (docs/topology.md).

// planAge is how old a pool connection's plans may grow; plannedAt is the
// connection's CustomData key for when they were last discarded.
const (
	planAge   = 10 * time.Second
	plannedAt = "loyalty.planned"
)

// plansKept says whether connections of cfg keep prepared statements
// from one run to the next.
func plansKept(cfg *pgx.ConnConfig) bool {
	switch cfg.DefaultQueryExecMode {
	case pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe:
		return true
	}
	return false
}

// stalePlans discards conn's cached plans when they are older than age.
// A connection that cannot is broken: database/sql and the pool drop it.
func stalePlans(ctx context.Context, conn *pgx.Conn, age time.Duration) error {
	data := conn.PgConn().CustomData()
	last, ok := data[plannedAt].(time.Time)
	now := time.Now()
	if !ok {
		data[plannedAt] = now // a new connection has planned nothing yet
		return nil
	}
	if now.Sub(last) < age {
		return nil
	}
	if _, err := conn.Exec(ctx, "DISCARD PLANS"); err != nil {
		return driver.ErrBadConn
	}
	data[plannedAt] = now
	return nil
}
