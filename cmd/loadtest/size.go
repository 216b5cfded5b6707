package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// The size scenario: one business grown to -customers customers with
// -per-customer ledger entries each, written straight in SQL (the API
// would take hours), measured at 10,000 customers and again at full size
// on the same running service, so the two figures come from one run. The
// statistics stay as a bulk load leaves them: no ANALYZE.

// sizeOps are the requests measured at each size; each picks its
// customer (or its window of join dates) at random per request.
var sizeOps = []string{"reward", "read", "history page 1", "customer list page 1", "filtered customer list"}

// sizeSample is how many customers (and date windows) a measurement
// spreads over.
const sizeSample = 500

func sizeScenario(ctx context.Context, st *site, o options) error {
	a := st.app
	b, err := businessOfKey(ctx, a, st.key)
	if err != nil {
		return err
	}
	main, err := mainBranch(ctx, a, b.ID)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "loyalty-size")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	base := time.Now().UTC().Add(-time.Duration(o.customers+1) * time.Second).Truncate(time.Second)
	small := min(10_000, o.customers)
	sizes := []int{small}
	if o.customers > small {
		sizes = append(sizes, o.customers)
	}
	results := map[int][]float64{}
	from := 0
	for _, size := range sizes {
		start := time.Now()
		if err := seedSize(ctx, a.DB.SQL(), a.DB.Dialect() == sqlstore.Postgres, b.ID, main, base, from, size, o.perCustomer); err != nil {
			return err
		}
		fmt.Printf("seeded customers %d..%d (%d entries each) in %s; database %s\n", from+1, size, o.perCustomer,
			time.Since(start).Round(time.Second), databaseSize(ctx, a))
		from = size
		if cpuProfile != "" && size == sizes[len(sizes)-1] {
			f, err := os.Create(cpuProfile)
			if err != nil {
				return err
			}
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		for _, op := range sizeOps {
			script, err := sizeScript(dir, op, size, base)
			if err != nil {
				return err
			}
			target := st.base
			if op == "reward" {
				target += "/transactions"
			}
			res, err := wrk(target, st.key, st.token, o.conns, o.threads, o.dur, script)
			if err != nil {
				return err
			}
			fmt.Printf("%9d customers, %-24s %s\n", size, op+":", res)
			rate, _ := strconv.ParseFloat(strings.Fields(res)[0], 64)
			results[size] = append(results[size], rate)
		}
	}
	fmt.Printf("throughput at %d customers as a share of at %d (target: time within 1.5×, i.e. ≥ 0.67):\n", o.customers, small)
	for i, op := range sizeOps {
		fmt.Printf("  %-24s %.2f\n", op+":", results[o.customers][i]/results[small][i])
	}
	return nil
}

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
			`INSERT INTO customers (business_id, user_id, email, points, tx_count, created_at, updated_at)
				SELECT $1, ` + id + `, 'size-' || g || '@example.com', $5::int * 10, $5::int, ` + at + `, ` + at + ` FROM ` + series,
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
		series + `INSERT INTO customers (business_id, user_id, email, points, tx_count, created_at, updated_at)
			SELECT $1, ` + id + `, 'size-' || n || '@example.com', $5 * 10, $5, ` + at + `, ` + at + ` FROM g`,
		series + `, k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $5)
			INSERT INTO transactions (business_id, customer_id, branch_id, intent, type_code, name, amount, points, visits,
				tier_amount, tier_points, created_at)
			SELECT $1, ` + id + `, $6, 'reward', 4, 'Reward', 1000, 10, 1, 1000, 10, ` + at + ` FROM g, k`,
	}
}

// sizeScript writes the wrk script of one measured request over
// customers 1..size.
func sizeScript(dir, op string, size int, base time.Time) (string, error) {
	var lua string
	quoted := func(s string) string { return strconv.Quote(s) }
	var items []string
	for range sizeSample {
		n := 1 + rand.IntN(size)
		switch op {
		case "reward":
			items = append(items, quoted(sizeID(n)))
		case "read":
			items = append(items, quoted("/customers/"+sizeID(n)+"?include=balance"))
		case "history page 1":
			items = append(items, quoted("/customers/"+sizeID(n)+"/transactions"))
		case "customer list page 1":
			items = append(items, quoted("/customers"))
		case "filtered customer list":
			// Customers who joined in a window of 1,000 seconds: the same
			// number of matches at every size.
			lo := base.Add(time.Duration(1+rand.IntN(max(1, size-1000))) * time.Second)
			window := "between|" + lo.Format(time.RFC3339) + "," + lo.Add(999*time.Second).Format(time.RFC3339)
			items = append(items, quoted("/customers?created_at="+url.QueryEscape(window)))
		}
	}
	if op == "reward" {
		lua = fmt.Sprintf(rewardScript, strings.Join(items, ","))
	} else {
		lua = "paths = {" + strings.Join(items, ",") + "}\nrequest = function()\n  return wrk.format(\"GET\", paths[math.random(#paths)])\nend\n"
	}
	path := filepath.Join(dir, strings.ReplaceAll(op, " ", "-")+".lua")
	return path, os.WriteFile(path, []byte(lua), 0o600)
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
