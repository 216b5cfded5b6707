package sqlstore_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// keptPlans skips t where connections keep no prepared statement (exec
// mode, as behind a transaction pooler) and returns the DSN of a fresh
// PostgreSQL database.
func keptPlans(t *testing.T) string {
	t.Helper()
	needPostgres(t)
	dsn := testenv.DSN(t, sqlstore.Postgres)
	if strings.Contains(dsn, "default_query_exec_mode=exec") {
		t.Skip("in exec mode (behind a transaction pooler) no connection keeps a plan")
	}
	return dsn
}

// loadLedger appends n entries of a customer in one statement, as an
// import would, without statistics.
func loadLedger(t *testing.T, db *sqlstore.DB, businessID, customerID string, n int) {
	t.Helper()
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, intent, type_code, name, amount, points,
			visits, tier_amount, tier_points, created_at)
		SELECT $1, $2, 'reward', 4, 'Reward', 100, 1, 1, 100, 1, $3 FROM generate_series(1, $4::int)`,
		businessID, customerID, db.Now(), n); err != nil {
		t.Fatal(err)
	}
}

// TestWriterPlansFollowTheLedger: the group writer's connection
// (PostgreSQL) plans its statement, and the checks of the keys of what it
// inserts (an entry and its lot name their customer), while the ledger and
// the customers are small, and analysed so. 50,000 entries and 50,000
// customers are then loaded without statistics; a second later the next
// rewards reach both by key, not by reading either table: the writer's
// backend, once it ends (which flushes its counters), has read neither
// through. (Until migration 00074 a lot's key to its entry was checked
// too; the ledger's figure stays as a check of the statement's own plan.)
func TestWriterPlansFollowTheLedger(t *testing.T) {
	w := newWriterSite(t)
	db := w.db
	if _, err := db.SQL().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	for range 8 {
		w.reward()
	}
	const loaded = 50_000
	loadLedger(t, db, w.businessID, w.customerID, loaded)
	insertCustomers(t, db, w.businessID, 0, loaded)
	time.Sleep(time.Second + 200*time.Millisecond) // the writer's plans are a second old at most
	for range 20 {
		w.reward()
	}
	pids := w.writers(t)
	if len(pids) != 1 {
		t.Fatalf("backends of the group writer: %v, want one", pids)
	}
	// With a timeout, pg_terminate_backend waits for the backend to end,
	// after it flushed its counters.
	var ended bool
	if err := db.SQL().QueryRowContext(ctx, `SELECT pg_terminate_backend($1, 10000)`, pids[0]).Scan(&ended); err != nil || !ended {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", pids[0], ended, err)
	}
	var read, customersRead int64
	if err := db.SQL().QueryRowContext(ctx, `SELECT
			(SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = 'transactions'::regclass),
			(SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = 'customers'::regclass)`).
		Scan(&read, &customersRead); err != nil {
		t.Fatal(err)
	}
	if read >= loaded {
		t.Errorf("the ledger's rows read by sequential scans: %d, want fewer than the %d loaded (20 rewards checked their entries by reading it)", read, loaded)
	}
	// The load itself reads up to one row of customers for each it
	// inserts; 20 rewards reaching their customer by reading the table
	// would add 20 times the customers loaded.
	if customersRead >= 2*loaded {
		t.Errorf("customers' rows read by sequential scans: %d, want fewer than twice the %d loaded (20 rewards reached their customer by reading them)", customersRead, loaded)
	}
	if bal, n := balanceOf(t, db, w.businessID, w.customerID); bal.Points != 280 || n != loaded+28 {
		t.Errorf("balance %d in %d entries, want 280 in %d", bal.Points, n, loaded+28)
	}
}

// TestPoolPlansFollowTheTables: a pool connection keeps a prepared
// lookup of an entry by id whose generic plan was made while the ledger
// was empty (and analysed so): a sequential scan. After 50,000 entries
// are loaded and the store's plan age (Options.PlanAge) has passed, the
// connection, handed out again, plans the lookup by key.
func TestPoolPlansFollowTheTables(t *testing.T) {
	dsn := keptPlans(t)
	db, err := sqlstore.OpenWith(ctx, dsn, sqlstore.Options{PlanAge: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	biz := createBusiness(t, db, "")
	c := createCustomer(t, db, biz.BusinessID, loyalty.CustomerInput{Email: loyalty.Some("pool@example.com")})
	if _, err := db.SQL().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `PREPARE entry(bigint) AS SELECT points FROM transactions WHERE id = $1`); err != nil {
		t.Fatal(err)
	}
	for range 6 { // the sixth run makes the generic plan, kept from then on
		if _, err := conn.ExecContext(ctx, `EXECUTE entry(1)`); err != nil {
			t.Fatal(err)
		}
	}
	if p := explain(t, conn, `EXPLAIN EXECUTE entry(1)`); !strings.Contains(p, "Seq Scan on transactions") {
		t.Fatalf("the test's premise is gone: the plan kept while the ledger was empty does not read it whole:\n%s", p)
	}
	conn.Close()
	loadLedger(t, db, biz.BusinessID, c.ID, 50_000)
	time.Sleep(400 * time.Millisecond)
	// Hold every connection the store may open, so the one that prepared
	// the lookup is among them, handed out again.
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			c.ExecContext(ctx, `DEALLOCATE ALL`)
			c.Close()
		}
	}()
	found := false
	for range 16 {
		c, err := db.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		var n int
		if err := c.QueryRowContext(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE name = 'entry'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			continue
		}
		found = true
		if p := explain(t, c, `EXPLAIN EXECUTE entry(1)`); !strings.Contains(p, "Index Scan using transactions_pkey") {
			t.Errorf("after 50,000 entries and the plan age, the connection still looks an entry up by:\n%s", p)
		}
	}
	if !found {
		t.Fatal("no connection of the store holds the prepared lookup")
	}
}
