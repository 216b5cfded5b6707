package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// tx is one transaction with its fixed time.
type tx struct {
	*sql.Tx
	now    time.Time
	wall   time.Time // the real time of now: now less a sandbox business's offset
	access bool      // it changes what a token lookup may have read (accessChanged)
	sqlite bool      // on SQLite's single writer: events are numbered as they are written
	// prepared are statements prepared on SQLite's writer, by query;
	// later are those prepared there since (DB.writeStmt) outside a
	// transaction, looked up after them.
	prepared map[string]*sql.Stmt
	later    *stmts
	pg       bool // on PostgreSQL (else SQLite, whose one writer needs no row locks)
}

// dialect is the engine the transaction runs on.
func (t *tx) dialect() string {
	if t.pg {
		return Postgres
	}
	return SQLite
}

// Now returns the time of the whole change.
func (t *tx) Now() time.Time { return t.now }

// AuditedBy returns a view of the store whose transactions write r's
// audit entry, the first that commits (loyalty.AuditedStore), on d's
// clock.
func (d *DB) AuditedBy(r *loyalty.AuditRecord) any {
	return &DB{dbState: d.dbState, audit: r, offset: d.offset}
}

// ClockedBy returns a view of the store whose Now and transactions are
// offset ahead of the real clock: a sandbox business's clock
// (loyalty.ClockedStore), writing d's audit record.
func (d *DB) ClockedBy(offset time.Duration) any {
	return &DB{dbState: d.dbState, audit: d.audit, offset: offset}
}

// AuditRecord is the audit record the view's transactions write, nil for
// the store itself.
func (d *DB) AuditRecord() *loyalty.AuditRecord { return d.audit }

// WithTx runs fn in one transaction.
func (d *DB) WithTx(ctx context.Context, fn func(loyalty.Tx) error) error {
	return d.runTx(ctx, func(t *tx) error { return fn(t) })
}

// WithTxOptions runs fn in one transaction with the options given: dated
// by opts' clock, writing its audit entry and import mark before
// committing.
func (d *DB) WithTxOptions(ctx context.Context, opts loyalty.TxOptions, fn func(loyalty.Tx) error) error {
	return d.runTxWith(ctx, opts, func(t *tx) error { return fn(t) })
}

// runTx runs fn in one transaction with no options of its own.
func (d *DB) runTx(ctx context.Context, fn func(*tx) error) error {
	return d.runTxWith(ctx, loyalty.TxOptions{}, fn)
}

// runTxWith runs fn in one transaction with opts, the view's audit record
// (AuditedBy) and clock (ClockedBy) filling their gaps:
// dated by the offset clock, writing the import mark (ErrRowImported,
// ErrImportLeaseLost) and the audit entry after fn and before committing,
// so that they commit with the change or not at all. Once it commits, opts are told
// (Committed), and the cached token lookups end if fn changed what they
// read (tx.accessChanged).
func (d *DB) runTxWith(ctx context.Context, opts loyalty.TxOptions, fn func(*tx) error) error {
	offset := opts.Offset
	if offset == 0 {
		offset = d.offset
	}
	prepared := d.txStatements(ctx)
	stx, err := d.wdb.BeginTx(ctx, nil)
	if err != nil {
		return dbError(err)
	}
	t := &tx{Tx: stx, now: d.now().Add(offset), wall: d.now(), sqlite: d.dialect == SQLite, pg: d.dialect == Postgres, prepared: prepared,
		later: &d.wstmts}
	err = fn(t)
	if d.audit != nil {
		// Asked after fn: a change refused inside it withdraws its audit
		// entry.
		opts = opts.With(d.audit.TxOptions())
	}
	if err == nil && opts.ImportRow != nil {
		err = t.writeImportRow(ctx, opts.ImportRow)
	}
	if err == nil && opts.Audit != nil {
		err = t.insertAudit(ctx, opts.Audit)
	}
	if err == nil && t.access && d.dialect == Postgres {
		// Delivered at commit to every instance's listener.
		_, err = t.ExecContext(ctx, `SELECT pg_notify('`+accessChannel+`', current_schema())`)
	}
	var generation int64
	if err == nil && t.access && d.dialect == SQLite {
		// Read by every process's watcher (access_watch.go).
		err = t.QueryRowContext(ctx, `UPDATE access_generation SET n = n + 1 WHERE id = 1 RETURNING n`).Scan(&generation)
	}
	if err != nil {
		_ = stx.Rollback()
		return dbError(err)
	}
	if err := stx.Commit(); err != nil {
		return dbError(err)
	}
	d.wrote()
	opts.Committed()
	if t.access {
		d.tokens.changed()
		if d.watch != nil {
			d.watch.own(generation)
		}
	}
	return nil
}
