package sqlstore_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// An unreachable database is EUnavailable (503 with Retry-After), not an
// internal error: the tests below cut the connection, terminate the
// server's backend, close the store, and hold SQLite's write lock.

// wantUnavailable fails the test unless err is EUnavailable with a
// Retry-After of a few seconds.
func wantUnavailable(tb testing.TB, what string, err error) {
	tb.Helper()
	e, ok := err.(*loyalty.Error)
	if !ok || e.Code != loyalty.EUnavailable || e.RetryAfter < 1 || e.RetryAfter > 10 {
		tb.Errorf("%s: %v (%T), want EUnavailable with a Retry-After of a few seconds", what, err, err)
	}
}

// openMigrated opens dsn, migrates it and closes it when the test ends.
func openMigrated(tb testing.TB, dsn string) *sqlstore.DB {
	tb.Helper()
	db := open(tb, dsn)
	if _, err := db.Migrate(ctx); err != nil {
		tb.Fatalf("Migrate: %v", err)
	}
	return db
}

func needPostgres(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL is off (LOYALTY_TEST_POSTGRES=off)")
	}
}

// TestOutageConnectionCut: PostgreSQL goes away (every connection closed,
// new ones refused): reads and writes are EUnavailable; when it is back,
// the store works again without being reopened.
func TestOutageConnectionCut(t *testing.T) {
	needPostgres(t)
	dsn, proxy := testenv.Proxied(t, testenv.DSN(t, sqlstore.Postgres))
	db := openMigrated(t, dsn)
	b := createBusiness(t, db, "")

	proxy.Cut()
	_, err := db.Business(ctx, b.BusinessID)
	wantUnavailable(t, "read while cut", err)
	_, err = db.CreateCoalition(ctx, "Mall", "key-"+loyalty.NewID())
	wantUnavailable(t, "write while cut", err)
	_, err = db.Tenant(ctx, b.ApplicationKey)
	wantUnavailable(t, "key lookup while cut", err)

	proxy.Restore()
	if _, err := db.Business(ctx, b.BusinessID); err != nil {
		t.Errorf("read after restore: %v", err)
	}
	if _, err := db.CreateCoalition(ctx, "Mall", "key-"+loyalty.NewID()); err != nil {
		t.Errorf("write after restore: %v", err)
	}
}

// TestOutageBackendTerminated: the server ends the connection of a
// transaction (pg_terminate_backend: SQLSTATE 57P01, as in a shutdown):
// the transaction is EUnavailable; connections that were terminated are
// replaced, so reads work again.
func TestOutageBackendTerminated(t *testing.T) {
	needPostgres(t)
	app := "outage-" + loyalty.NewID()[:12]
	db := openMigrated(t, testenv.DSN(t, sqlstore.Postgres)+"&application_name="+app)
	b := createBusiness(t, db, "")
	admin := db.SQL() // another connection of the pool, for the kills
	type querier interface {
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
	err := db.WithTx(ctx, func(tx loyalty.Tx) error {
		q := tx.(querier)
		var pid int
		if err := q.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatalf("pg_backend_pid: %v", err)
		}
		var ok bool
		if err := admin.QueryRowContext(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil || !ok {
			t.Fatalf("pg_terminate_backend(%d) = %v, %v", pid, ok, err)
		}
		var one int
		return q.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
	})
	wantUnavailable(t, "transaction whose backend was terminated", err)

	// Every other connection of the store is terminated too: a read may
	// meet one of them (EUnavailable), then the pool connects again.
	if _, err := admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid()`, app); err != nil {
		t.Fatal(err)
	}
	for try := 1; ; try++ {
		_, err := db.Business(ctx, b.BusinessID)
		if err == nil {
			break
		}
		wantUnavailable(t, "read after the backends were terminated", err)
		if try == 5 {
			t.Fatalf("no read works after %d tries", try)
		}
	}
}

// TestOutageClosedStore: a store used after Close (as in a shutdown) is
// EUnavailable on both engines.
func TestOutageClosedStore(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		db.Close()
		_, err := db.Business(ctx, b.BusinessID)
		wantUnavailable(t, "read after Close", err)
		_, err = db.CreateCoalition(ctx, "Mall", "key-"+loyalty.NewID())
		wantUnavailable(t, "write after Close", err)
	})
}

// TestOutageSQLiteBusy: another process holds SQLite's write lock past the
// busy timeout (set short in the DSN): a write is EUnavailable, reads go
// on (WAL), and writes work again once the lock is released.
func TestOutageSQLiteBusy(t *testing.T) {
	path := testenv.DSN(t, sqlstore.SQLite)
	db := openMigrated(t, path+"?_pragma=busy_timeout(200)")
	b := createBusiness(t, db, "")
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	start := time.Now()
	_, err = db.CreateCoalition(ctx, "Mall", "key-"+loyalty.NewID())
	wantUnavailable(t, "write while another process holds the lock", err)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the write waited %v; the DSN's busy timeout is 200ms", d)
	}
	if _, err := db.Business(ctx, b.BusinessID); err != nil {
		t.Errorf("read while the lock is held: %v", err)
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateCoalition(ctx, "Mall", "key-"+loyalty.NewID()); err != nil {
		t.Errorf("write after the lock is released: %v", err)
	}
}
