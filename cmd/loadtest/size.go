package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// mainBranch is the id of a business's main branch, where seeded entries
// are written.
func mainBranch(ctx context.Context, a *app.App, businessID string) (string, error) {
	var id string
	err := a.DB.WithTx(ctx, func(tx loyalty.Tx) error {
		m, err := tx.MainBranch(ctx, businessID)
		id = m.ID
		return err
	})
	return id, err
}

// sizeID is the id of seeded customer n: 32 hex digits, as NewID's.
func sizeID(n int) string { return fmt.Sprintf("%032x", n) }

// seedSize writes customers from+1..to, each with perCustomer reward
// entries and the balance they sum to, joined a second apart from base,
// in chunks of one transaction each, on db (PostgreSQL if pg, else
// SQLite).
func seedSize(ctx context.Context, db *sql.DB, pg bool, businessID, branch string, base time.Time, from, to, perCustomer int) error {
	const chunk = 50_000
	for lo := from; lo < to; lo += chunk {
		hi := min(lo+chunk, to)
		err := seedChunk(ctx, db, businessID, branch, base, lo, hi, perCustomer, pg)
		if errors.Is(err, driver.ErrBadConn) {
			// A connection that a measurement's cancelled request broke:
			// the chunk's transaction wrote nothing, so it runs again.
			err = seedChunk(ctx, db, businessID, branch, base, lo, hi, perCustomer, pg)
		}
		if err != nil {
			return err
		}
	}
	// The pages the seeding dirtied are written now, not by a checkpoint
	// in the middle of the measurement.
	q := `PRAGMA wal_checkpoint(TRUNCATE)`
	if pg {
		q = `CHECKPOINT`
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return err
	}
	return settleDisk(ctx)
}

// settleDisk flushes the machine's dirty pages and waits until few are
// left: gigabytes just written would otherwise still be on their way to
// the disk during the measurement, and every fsync of it (each commit
// of SQLite's single writer) would queue behind them.
func settleDisk(ctx context.Context) error {
	syscall.Sync()
	for start := time.Now(); time.Since(start) < 2*time.Minute; {
		if dirtyKB() < 64<<10 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}

// dirtyKB is the machine's dirty page cache in KiB (/proc/meminfo), 0
// where it cannot be read.
func dirtyKB() int {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Dirty:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// seedChunk writes customers lo+1..hi in one transaction.
func seedChunk(ctx context.Context, db *sql.DB, businessID, branch string, base time.Time, lo, hi, perCustomer int, pg bool) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	all := []any{businessID, lo + 1, hi, base, perCustomer, branch}
	for i, q := range seedSQL(pg) {
		// PostgreSQL wants no parameter a statement leaves unused:
		// the users' statement takes no business, entries or branch.
		args := all
		if i == 0 {
			args = all[:4]
		} else if i == 1 {
			args = all[:5]
		}
		if _, err = tx.ExecContext(ctx, q, args...); err != nil {
			tx.Rollback()
			return fmt.Errorf("seed: %w", err)
		}
	}
	return tx.Commit()
}

// seedSQL returns the statements of a chunk. Their parameters: $1
// business, $2 first and $3 last customer number, $4 base time, $5
// entries per customer, $6 main branch.
func seedSQL(pg bool) []string {
	if pg {
		series := `generate_series($2::int, $3::int) g`
		id := `lpad(to_hex(g), 32, '0')`
		at := `$4::timestamptz + g * interval '1 second'`
		return []string{
			`INSERT INTO users (id, email, created_at, updated_at) SELECT ` + id + `, 'size-' || g || '@example.com', ` + at + `, ` + at + ` FROM ` + series + ` WHERE $1::text IS NOT NULL`,
			`INSERT INTO customers (business_id, user_id, email, phone, country_code, points, tx_count, created_at, updated_at)
				SELECT $1, ` + id + `, 'size-' || g || '@example.com', '+1' || (2122000000 + g), 'US', $5::int * 10, $5::int, ` + at + `, ` + at + ` FROM ` + series,
			`INSERT INTO transactions (business_id, customer_id, branch_id, intent, type_code, name, amount, points, visits,
				tier_amount, tier_points, created_at)
				SELECT $1, ` + id + `, $6, 'reward', 4, 'Reward', 1000, 10, 1, 1000, 10, ` + at + ` + k * interval '1 millisecond'
				FROM ` + series + `, generate_series(1, $5::int) k`,
		}
	}
	series := `WITH RECURSIVE g(n) AS (SELECT $2 UNION ALL SELECT n + 1 FROM g WHERE n < $3) `
	id := `printf('%032x', n)`
	at := `strftime('%Y-%m-%d %H:%M:%S', $4, '+' || n || ' seconds') || '+00:00'`
	return []string{
		series + `INSERT INTO users (id, email, created_at, updated_at) SELECT ` + id + `, 'size-' || n || '@example.com', ` + at + `, ` + at + ` FROM g`,
		series + `INSERT INTO customers (business_id, user_id, email, phone, country_code, points, tx_count, created_at, updated_at)
			SELECT $1, ` + id + `, 'size-' || n || '@example.com', '+1' || (2122000000 + n), 'US', $5 * 10, $5, ` + at + `, ` + at + ` FROM g`,
		series + `, k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $5)
			INSERT INTO transactions (business_id, customer_id, branch_id, intent, type_code, name, amount, points, visits,
				tier_amount, tier_points, created_at)
			SELECT $1, ` + id + `, $6, 'reward', 4, 'Reward', 1000, 10, 1, 1000, 10, ` + at + ` FROM g, k`,
	}
}

// seedCoupons gives customers 1..n of seedSize a pending coupon of the
// offer each, issued when they joined.
func seedCoupons(ctx context.Context, db *sql.DB, pg bool, businessID, offerID string, base time.Time, n int) error {
	q := `INSERT INTO coupons (business_id, offer_id, customer_id, qrcode, coupon_type_id, created_at, updated_at)
		SELECT $1, $2::bigint, lpad(to_hex(g), 32, '0'), 'size-' || $1 || '-' || g, 74,
			$4::timestamptz + g * interval '1 second', $4::timestamptz + g * interval '1 second'
		FROM generate_series(1, $3::int) g`
	if !pg {
		q = `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < $3)
		INSERT INTO coupons (business_id, offer_id, customer_id, qrcode, coupon_type_id, created_at, updated_at)
		SELECT $1, $2, printf('%032x', n), 'size-' || $1 || '-' || n, 74,
			strftime('%Y-%m-%d %H:%M:%S', $4, '+' || n || ' seconds') || '+00:00',
			strftime('%Y-%m-%d %H:%M:%S', $4, '+' || n || ' seconds') || '+00:00'
		FROM g`
	}
	id, err := strconv.ParseInt(offerID, 10, 64)
	if err != nil {
		return fmt.Errorf("offer id %q: %w", offerID, err)
	}
	if _, err := db.ExecContext(ctx, q, businessID, id, n, base); err != nil {
		return fmt.Errorf("seed coupons: %w", err)
	}
	return nil
}

// databaseSize reports the size of the run's database.
func databaseSize(ctx context.Context, a *app.App) string {
	var n int64
	q := `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`
	if a.DB.Dialect() == sqlstore.Postgres {
		q = `SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
			WHERE s.nspname = current_schema() AND c.relkind = 'r'`
	}
	if err := a.DB.SQL().QueryRowContext(ctx, q).Scan(&n); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
