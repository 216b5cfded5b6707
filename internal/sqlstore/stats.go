package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// SQLite's planner statistics without samples.
//
// The SQLite this store is built with reads sample statistics
// (sqlite_stat4) when the database has them. A statement compiled while
// a connection holds samples, if it compares an indexed column with a
// parameter, is compiled again at every execution that binds that
// parameter, for as long as it stays prepared: the samples might choose
// another plan for the new value. The ledger's entry insert is such a
// statement (an entry without a branch looks up the business's main
// branch), and compiling it, with its trigger and foreign keys, costs
// three times what running it does; on the single writer that is every
// reward's cost. With samples, a basket reward went from about 3,000 to
// about 2,000 a second (docs/measuring.md, "SQLite's sample
// statistics").
//
// So the store keeps SQLite's row-count statistics (sqlite_stat1), which
// its plans can use, and no samples. A connection drops the samples it
// has loaded only when it reloads the statistics itself (ANALYZE
// sqlite_schema), not when another connection removes them, so:
//   - Analyze gathers the statistics, empties the samples and reloads, in
//     one transaction on the writer's connection: no other connection
//     ever sees the samples, and the writer compiles nothing meanwhile;
//   - Open empties the samples an ANALYZE by hand (or PRAGMA optimize)
//     left, on the writer's connection before any other is made.
//
// PostgreSQL plans each statement once whatever its statistics say
// (plans.go), so it keeps them all.

// Analyze gathers the planner's statistics of every table: on SQLite
// without samples (above), on PostgreSQL as autovacuum's ANALYZE does.
func (d *DB) Analyze(ctx context.Context) error {
	if d.dialect != SQLite {
		if _, err := d.db.ExecContext(ctx, "ANALYZE"); err != nil {
			return fmt.Errorf("analyze: %w", dbError(err))
		}
		return nil
	}
	if err := clearSamples(ctx, d.wdb, "ANALYZE"); err != nil {
		return fmt.Errorf("analyze: %w", dbError(err))
	}
	return nil
}

// clearSamples runs first (if any) then empties SQLite's sample
// statistics and reloads the statistics, in one transaction of w.
func clearSamples(ctx context.Context, w *sql.DB, first string) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{first, `DELETE FROM sqlite_stat4`, `ANALYZE sqlite_schema`} {
		if q == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// dropLeftSamples empties the sample statistics an ANALYZE by hand left
// in a SQLite database, through w, the writer's connection, before
// the store makes any other.
func dropLeftSamples(ctx context.Context, w *sql.DB) error {
	var n int
	if err := w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat4'`).Scan(&n); err != nil || n == 0 {
		return err
	}
	var some bool
	if err := w.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sqlite_stat4)`).Scan(&some); err != nil || !some {
		return err
	}
	return clearSamples(ctx, w, "")
}
