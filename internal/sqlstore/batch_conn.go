package sqlstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// batchConn is the PostgreSQL group writer's own connection, where
// batchSQL is a prepared statement run with its generic plan: planned
// once, not at every batch. Parsing and planning the statement cost about
// as much as writing a batch of eight entries, all of it in the one
// backend that writes every batch.
//
// A generic plan keeps the table sizes of the moment it was made, and
// whether the statement reaches customers by its key or by hashing the
// whole table depends on how big the planner believes it is (the current
// number of pages; not the statistics, which may be stale). The same goes
// for the foreign-key checks of the rows it inserts (an entry and its lot
// name their customer), which the backend plans once and keeps. So the connection
// discards its plans every replanAfter (DISCARD PLANS, see plans.go): the
// plans follow the tables as they grow, as custom plans would, for one
// planning a second instead of one per batch. Before the foreign-key
// checks were included, a writer that had first checked a lot's entry
// while the ledger was empty (and analysed so) read the whole ledger for
// each lot from then on: BenchmarkRewardByAmount/postgres fell to 1,100
// rewards/s after 17,000 rewards, and lower the longer it ran (that key
// is gone since migration 00074; the customers' keys would do the same,
// TestWriterPlansFollowTheLedger).
//
// The connection is made with the settings of the store's session
// connections (Options.ListenDSN, or else the pool's) plus
// plan_cache_mode, so only this connection's statements are planned this
// way; it is one
// more than the pool's pool_max_conns. When those settings go through a
// transaction pooler (default_query_exec_mode=exec or describe_exec: no
// server-side statement survives a transaction) there is no batchConn
// and each batch is planned afresh through the pool (appendBatch.send).
type batchConn struct {
	cfg      *pgx.ConnConfig
	conn     *pgx.Conn
	prepared bool // batchSQL is prepared on conn
}

const (
	batchStatement = "loyalty_append_batch"
	replanAfter    = time.Second
	connectTimeout = 10 * time.Second
)

// newBatchConn is the writer's connection for cfg, or nil when cfg's
// statements cannot outlive their transaction.
func newBatchConn(cfg *pgx.ConnConfig) *batchConn {
	if !plansKept(cfg) {
		return nil
	}
	c := cfg.Copy()
	c.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	return &batchConn{cfg: c}
}

// query runs batchSQL with args, connecting and preparing as needed.
func (c *batchConn) query(ctx context.Context, args ...any) (pgx.Rows, error) {
	if c.conn == nil || c.conn.IsClosed() {
		connect, cancel := context.WithTimeout(ctx, connectTimeout)
		conn, err := pgx.ConnectConfig(connect, c.cfg)
		cancel()
		if err != nil {
			return nil, err
		}
		c.conn, c.prepared = conn, false
	}
	if !c.prepared {
		if _, err := c.conn.Prepare(ctx, batchStatement, batchSQL); err != nil {
			c.drop()
			return nil, err
		}
		c.prepared = true
	}
	if err := stalePlans(ctx, c.conn, replanAfter); err != nil {
		c.drop()
		return nil, err
	}
	return c.conn.Query(ctx, batchStatement, args...)
}

// drop closes the connection after an error; the next batch connects anew.
func (c *batchConn) drop() {
	if c.conn != nil {
		c.conn.Close(context.Background())
		c.conn = nil
	}
}

// send runs batchSQL with args and returns the balances it wrote, by
// entry id: on the writer's own connection with its prepared statement
// (batchConn), or else through the pool planned afresh (exec mode: an
// unnamed statement, so a custom plan; a prepared statement's generic plan,
// cached when the connection first ran it, would keep the table sizes of
// that moment for ever, and one made while customers was small joins it
// by a sequential scan: 0.24x the bare server's rewards once it held
// 20,000 customers).
func (b *appendBatch) send(args []any) (map[int64]loyalty.Balance, error) {
	type rowsOf interface {
		Next() bool
		Scan(...any) error
		Err() error
	}
	var rows rowsOf
	var closeRows func()
	if b.conn != nil {
		r, err := b.conn.query(context.Background(), args...)
		if err != nil {
			return nil, err
		}
		rows, closeRows = r, r.Close
	} else {
		r, err := b.db.db.QueryContext(context.Background(), batchSQL, append([]any{pgx.QueryExecModeExec}, args...)...)
		if err != nil {
			return nil, err
		}
		rows, closeRows = r, func() { r.Close() }
	}
	written := map[int64]loyalty.Balance{}
	var err error
	for rows.Next() {
		var i int32
		var id, pts, gc, pend int64
		if err = rows.Scan(&i, &id, &pts, &gc, &pend); err != nil {
			break
		}
		written[id] = loyalty.Balance{Points: pts, Giftcard: loyalty.Money(gc), Pending: pend}
	}
	closeRows()
	if err == nil {
		err = rows.Err()
	}
	if err != nil && b.conn != nil {
		// Lost, or refused (read-only after a failover, say): the next
		// batch connects anew, where the pool's settings lead.
		b.conn.drop()
	}
	return written, err
}
