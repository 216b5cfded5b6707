package sqlstore_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
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

// TestOutageEveryRead: while PostgreSQL is cut, every read the API and the
// pages make of the store is EUnavailable, whichever query meets the
// outage first.
func TestOutageEveryRead(t *testing.T) {
	needPostgres(t)
	dsn, proxy := testenv.Proxied(t, testenv.DSN(t, sqlstore.Postgres))
	db := openMigrated(t, dsn)
	b := createBusiness(t, db, "")
	c := createCustomer(t, db, b.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("ann@x.example")})
	biz, err := db.Business(ctx, b.BusinessID)
	if err != nil {
		t.Fatal(err)
	}
	tenant, err := db.Tenant(ctx, b.ApplicationKey)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	q := loyalty.ListQuery{Page: 1, PerPage: 10}
	hash := []byte("0123456789abcdef0123456789abcdef")
	reads := map[string]func() error{
		"Business":   func() error { _, err := db.Business(ctx, b.BusinessID); return err },
		"Account":    func() error { _, err := db.Account(ctx, b.BusinessID, b.OwnerID); return err },
		"Branches":   func() error { _, err := db.Branches(ctx, b.BusinessID); return err },
		"Tenant":     func() error { _, err := db.Tenant(ctx, b.ApplicationKey); return err },
		"BranchPage": func() error { _, _, err := db.BranchPage(ctx, b.BusinessID, q); return err },
		"Offer":      func() error { _, err := db.Offer(ctx, b.BusinessID, 1); return err },
		"Offers":     func() error { _, _, err := db.Offers(ctx, b.BusinessID, q); return err },
		"AllOffers": func() error {
			_, err := db.AllOffers(ctx, b.BusinessID)
			return err
		},
		"CustomerCoupons":      func() error { _, err := db.CustomerCoupons(ctx, b.BusinessID, c.ID); return err },
		"Customer":             func() error { _, err := db.Customer(ctx, b.BusinessID, c.ID); return err },
		"Customers":            func() error { _, _, err := db.Customers(ctx, b.BusinessID, q); return err },
		"Rules":                func() error { _, err := db.Rules(ctx, biz); return err },
		"BusinessForLedger":    func() error { _, err := db.BusinessWithRules(ctx, b.BusinessID); return err },
		"CustomerTransactions": func() error { _, _, err := db.CustomerTransactions(ctx, b.BusinessID, c.ID, q); return err },
		"Transactions":         func() error { _, _, err := db.Transactions(ctx, b.BusinessID, q); return err },
		"TierTotals":           func() error { _, err := db.TierTotals(ctx, b.BusinessID, c.ID, now.Add(-time.Hour), now); return err },
		"IdempotentReply":      func() error { _, err := db.IdempotentReply(ctx, b.BusinessID, "k"); return err },
		"AppByClientID":        func() error { _, err := db.AppByClientID(ctx, "client"); return err },
		"OwnerLogin":           func() error { _, err := db.OwnerLogin(ctx, b.OwnerEmail); return err },
		"UserLogin":            func() error { _, err := db.UserLogin(ctx, "ann@x.example", []string{b.BusinessID}); return err },
		"Access":               func() error { _, err := db.Access(ctx, hash); return err },
		"AccessForKey":         func() error { _, err := db.AccessForKey(ctx, hash, b.ApplicationKey); return err },
		"AccessWithBusiness":   func() error { _, _, err := db.AccessWithBusiness(ctx, hash, b.ApplicationKey); return err },
		"Refresh":              func() error { _, err := db.Refresh(ctx, hash); return err },
		"PointsOffers":         func() error { _, err := db.PointsOffers(ctx, b.BusinessID); return err },
		"CustomerOfferFacts": func() error {
			_, err := db.CustomerOfferFacts(ctx, c.ID, []int64{1}, []string{""})
			return err
		},
		"MainBranch":          func() error { _, err := db.MainBranch(ctx, b.BusinessID); return err },
		"CouponByID":          func() error { _, err := db.CouponByID(ctx, b.BusinessID, 1); return err },
		"ReferralPrograms":    func() error { _, err := db.ReferralPrograms(ctx, b.BusinessID); return err },
		"ReferralProgramByID": func() error { _, err := db.ReferralProgramByID(ctx, 1); return err },
		"Reward":              func() error { _, err := db.Reward(ctx, b.BusinessID, 1); return err },
		"Rewards":             func() error { _, _, err := db.Rewards(ctx, b.BusinessID, q); return err },
		"Giftcard":            func() error { _, err := db.Giftcard(ctx, b.BusinessID, 1); return err },
		"Giftcards":           func() error { _, _, err := db.Giftcards(ctx, b.BusinessID, q); return err },
		"Tiers":               func() error { _, err := db.Tiers(ctx, b.BusinessID); return err },
		"Tier":                func() error { _, err := db.Tier(ctx, b.BusinessID, 1); return err },
		"TierPage":            func() error { _, _, err := db.TierPage(ctx, b.BusinessID, q); return err },
		"ReferralProgramPage": func() error { _, _, err := db.ReferralProgramPage(ctx, b.BusinessID, q); return err },
		"ReferralProgram":     func() error { _, err := db.ReferralProgram(ctx, b.BusinessID, 1); return err },
		"Person":              func() error { _, err := db.Person(ctx, c.ID); return err },
		"Program":             func() error { _, err := db.Program(ctx, tenant); return err },
		"Memberships":         func() error { _, err := db.Memberships(ctx, c.ID, []string{b.BusinessID}); return err },
		"AccountLogin":        func() error { _, err := db.AccountLogin(ctx, "developer", "dev@x.example"); return err },
		"SessionByHash":       func() error { _, err := db.SessionByHash(ctx, hash); return err },
		"DeveloperApps":       func() error { _, err := db.DeveloperApps(ctx, c.ID); return err },
		"DeveloperApp":        func() error { _, err := db.DeveloperApp(ctx, c.ID, "client"); return err },
		"ListApps":            func() error { _, err := db.ListApps(ctx); return err },
		"ApplicationKey":      func() error { _, err := db.ApplicationKey(ctx, b.BusinessID); return err },
		"Connections":         func() error { _, err := db.Connections(ctx, b.BusinessID, now); return err },
		"Consented":           func() error { _, err := db.Consented(ctx, "app", b.BusinessID); return err },
		"CodeByHash":          func() error { _, err := db.CodeByHash(ctx, hash); return err },
	}
	proxy.Cut()
	for name, read := range reads {
		wantUnavailable(t, name, read())
	}
}

// TestOutageReadOnlyNode: a write that reaches a node accepting no writes
// (a demoted primary; a pooler's connection left on a node back as a
// standby), here a session whose transactions are read-only, is
// EUnavailable (503 with Retry-After, which clients retry), not a 500,
// and the connection that met it is closed, so the pool connects again,
// to the host of the URL that accepts writes. Left open, it would sit
// idle after its rollback, to be handed the next write.
func TestOutageReadOnlyNode(t *testing.T) {
	needPostgres(t)
	dsn := testenv.DSN(t, sqlstore.Postgres)
	admin := openMigrated(t, dsn)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	ro := open(t, dsn+sep+"default_transaction_read_only=on&application_name=read-only-node")
	_, err := ro.CreateCoalition(ctx, "Mall", "key-"+loyalty.NewID())
	wantUnavailable(t, "write on a read-only node", err)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var kept int
		if err := admin.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_activity
			WHERE application_name = 'read-only-node' AND lower(query) = 'rollback'`).Scan(&kept); err != nil {
			t.Fatal(err)
		}
		if kept == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection that met the read-only node is still open, idle after its rollback")
		}
	}
	if _, err := ro.Business(ctx, createBusiness(t, admin, "").BusinessID); err != nil {
		t.Errorf("a read after the refusal: %v", err)
	}
}

// TestMigrateFreshWaitsForNobody: migrating a new PostgreSQL database
// builds its indexes plainly, so it does not wait, as CREATE INDEX
// CONCURRENTLY does, for a transaction left open in another schema of the
// database (test schemas migrating side by side waited on each other so).
func TestMigrateFreshWaitsForNobody(t *testing.T) {
	needPostgres(t)
	other := open(t, testenv.DSN(t, sqlstore.Postgres))
	tx, err := other.SQL().BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		t.Fatal(err)
	}
	db := open(t, testenv.DSN(t, sqlstore.Postgres))
	done := make(chan error, 1)
	go func() {
		_, err := db.Migrate(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("migrating a new database still waits, after a minute, for a transaction open in another schema")
	}
}
