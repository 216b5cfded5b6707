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
// for the foreign-key checks of the rows it inserts (a lot names its
// entry), which the backend plans once and keeps. So the connection
// discards its plans every replanAfter (DISCARD PLANS, see plans.go): the
// plans follow the tables as they grow, as custom plans would, for one
// planning a second instead of one per batch. Before the foreign-key
// checks were included, a writer that had first checked a lot's entry
// while the ledger was empty (and analysed so) read the whole ledger for
// each lot from then on: BenchmarkRewardByAmount/postgres fell to 1,100
// rewards/s after 17,000 rewards, and lower the longer it ran.
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
	batchStatement     = "loyalty_append_batch"
	batchLockStatement = "loyalty_lock_batch"
	replanAfter        = time.Second
	connectTimeout     = 10 * time.Second
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

// run runs batchLockSQL with lock and then batchSQL with args, in one
// implicit transaction and one round trip (a pipeline), connecting and
// preparing as needed, and scans batchSQL's rows.
func (c *batchConn) run(ctx context.Context, lock, args []any, scan func(rowsOf) error) error {
	if c.conn == nil || c.conn.IsClosed() {
		connect, cancel := context.WithTimeout(ctx, connectTimeout)
		conn, err := pgx.ConnectConfig(connect, c.cfg)
		cancel()
		if err != nil {
			return err
		}
		c.conn, c.prepared = conn, false
	}
	if !c.prepared {
		for name, sql := range map[string]string{batchStatement: batchSQL, batchLockStatement: batchLockSQL} {
			if _, err := c.conn.Prepare(ctx, name, sql); err != nil {
				c.drop()
				return err
			}
		}
		c.prepared = true
	}
	if err := stalePlans(ctx, c.conn, replanAfter); err != nil {
		c.drop()
		return err
	}
	var batch pgx.Batch
	batch.Queue(batchLockStatement, lock...)
	batch.Queue(batchStatement, args...)
	br := c.conn.SendBatch(ctx, &batch)
	_, err := br.Exec()
	if err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			err = scan(rows)
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
	}
	// Close reads to the end of the pipeline: the commit's outcome.
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// drop closes the connection after an error; the next batch connects anew.
func (c *batchConn) drop() {
	if c.conn != nil {
		c.conn.Close(context.Background())
		c.conn = nil
	}
}

// send runs batchLockSQL with lock and then batchSQL with args, in one
// transaction, and returns the balances batchSQL wrote, by entry id: on
// the writer's own connection with its prepared statements (batchConn,
// one round trip), or else through the pool planned afresh (exec mode: an
// unnamed statement, so a custom plan; a prepared statement's generic plan,
// cached when the connection first ran it, would keep the table sizes of
// that moment for ever, and one made while customers was small joins it
// by a sequential scan: 0.24x the bare server's rewards once it held
// 20,000 customers).
func (b *appendBatch) send(lock, args []any) (map[int64]loyalty.Balance, error) {
	written := map[int64]loyalty.Balance{}
	scan := func(rows rowsOf) error {
		for rows.Next() {
			var i int32
			var id, pts, gc, pend int64
			if err := rows.Scan(&i, &id, &pts, &gc, &pend); err != nil {
				return err
			}
			written[id] = loyalty.Balance{Points: pts, Giftcard: loyalty.Money(gc), Pending: pend}
		}
		return rows.Err()
	}
	if b.conn != nil {
		err := b.conn.run(context.Background(), lock, args, scan)
		if err != nil {
			// Lost, or refused (read-only after a failover, say): the next
			// batch connects anew, where the pool's settings lead.
			b.conn.drop()
		}
		return written, err
	}
	ctx := context.Background()
	t, err := b.db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer t.Rollback()
	if _, err := t.ExecContext(ctx, batchLockSQL, append([]any{pgx.QueryExecModeExec}, lock...)...); err != nil {
		return nil, err
	}
	rows, err := t.QueryContext(ctx, batchSQL, append([]any{pgx.QueryExecModeExec}, args...)...)
	if err != nil {
		return nil, err
	}
	err = scan(rows)
	rows.Close()
	if err != nil {
		return written, err
	}
	return written, t.Commit()
}

// rowsOf is what send scans: pgx's rows or database/sql's.
type rowsOf interface {
	Next() bool
	Scan(...any) error
	Err() error
}
