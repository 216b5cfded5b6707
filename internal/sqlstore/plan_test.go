package sqlstore_test

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestCustomerKeyLookupsKeepTheirIndex plans, on a new (so never
// analysed, and empty) PostgreSQL database, the lookups of one customer by
// key as a prepared statement's generic plan: the plan a connection keeps
// for good once the statement has run a few times. The foreign-key check
// of each ledger entry and point lot is such a statement. Each must go
// through an index that leads with the key it is given — the primary key,
// or customers_user (a person has one customer row per business) — and
// never through an index that only narrows to the business, which at
// 200,000 customers reads them all for every row.
func TestCustomerKeyLookupsKeepTheirIndex(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	conn := genericPlans(t, db)
	index := regexp.MustCompile(`(?:Index|Index Only) Scan using (\S+) on customers`)
	for name, q := range map[string]string{
		"foreign-key check": `SELECT 1 FROM ONLY customers x WHERE business_id OPERATOR(pg_catalog.=) $1 AND user_id OPERATOR(pg_catalog.=) $2 FOR KEY SHARE OF x`,
		"balance move": `UPDATE customers AS cu SET points = cu.points + 1 WHERE cu.business_id = $1 AND cu.user_id = $2
			AND cu.deleted_at IS NULL AND cu.enabled AND cu.points + 1 >= 0`,
		"read": `SELECT points FROM customers WHERE business_id = $1 AND user_id = $2 AND deleted_at IS NULL`,
	} {
		t.Run(name, func(t *testing.T) {
			stmt := "plan_" + strings.ReplaceAll(name, " ", "_")
			stmt = strings.ReplaceAll(stmt, "-", "_")
			if _, err := conn.ExecContext(ctx, `PREPARE `+stmt+`(text, text) AS `+q); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, `DEALLOCATE `+stmt)
			plan := explain(t, conn, `EXPLAIN EXECUTE `+stmt+`('b', 'u')`)
			m := index.FindStringSubmatch(plan)
			if m == nil || (m[1] != "customers_pkey" && m[1] != "customers_user") {
				t.Errorf("the generic plan does not look the customer up by key:\n%s", plan)
			}
		})
	}
}

// TestCustomerListWalksTheIndex loads 200,000 customers of a business in
// bulk on a never-analysed PostgreSQL database and plans page 1 of its
// customer list: the plan walks the join-date index to the page, instead
// of reading and sorting every customer of the business (which the
// planner prefers when it believes few of them are active). Below some
// tens of thousands it may still sort them, which costs milliseconds.
func TestCustomerListWalksTheIndex(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "")
	seedCustomers(t, db, biz.BusinessID, 0, 200_000)
	p := explain(t, db.SQL(), `EXPLAIN `+strings.NewReplacer("$1", "'"+biz.BusinessID+"'", "$2", "15", "$3", "0").
		Replace(sqlstore.CustomerPageSQL(sqlstore.Postgres)))
	if !strings.Contains(p, "Index Scan using customers_created") || strings.Contains(p, "Bitmap Heap Scan") || strings.Contains(p, "Seq Scan") {
		t.Errorf("page 1 of 200,000 customers does not walk the join-date index:\n%s", p)
	}
}

// TestDueMessagesReadsTheIndex plans the outbox's poll (its generic plan,
// as TestCustomerKeyLookupsKeepTheirIndex) over an outbox of 20,000
// messages sent and a few due, with statistics that say so: the plan
// reads the due ones through outbox_due and outbox_leased. The poll written as one
// condition with OR walked every message in id order there instead (3.5
// ms a poll while 20,000 customers were created).
func TestDueMessagesReadsTheIndex(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO outbox (channel, recipient, body, status, next_attempt_at, created_at)
		SELECT 'email', g || '@example.com', 'welcome', CASE WHEN g % 5000 = 0 THEN 'pending' ELSE 'sent' END, now(), now()
		FROM generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `ANALYZE outbox`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The plan a connection keeps once the poll has run a few times.
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`,
		`PREPARE due(text, timestamptz, int) AS ` + sqlstore.DueMessagesSQL} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.ExecContext(ctx, `DEALLOCATE due; RESET plan_cache_mode`)
	p := explain(t, conn, `EXPLAIN EXECUTE due('pending', now(), 20)`)
	if !strings.Contains(p, "Index Scan using outbox_due") || !strings.Contains(p, "Index Scan using outbox_leased") ||
		strings.Contains(p, "outbox_pkey") || strings.Contains(p, "Seq Scan") {
		t.Errorf("the poll does not read the due messages through outbox_due and outbox_leased:\n%s", p)
	}
	ids, err := db.DueMessages(ctx, time.Now().Add(time.Minute), 20)
	if err != nil || len(ids) != 4 {
		t.Errorf("DueMessages = %v, %v; want the 4 pending", ids, err)
	}
}

// TestEntriesByIDReadTheKey plans the read of a page's ledger entries by
// id (the dashboard's follower, GET /events) over a ledger of 20,000
// entries with statistics that say so, as PostgreSQL plans it for a
// page's 500 ids (custom and generic plans) and as SQLite does: each id
// is looked up by primary key. Written as t.id = ANY($1), PostgreSQL read
// the whole ledger for it in the production load test; written as a
// lateral lookup it may flatten, it hashes the whole ledger here.
func TestEntriesByIDReadTheKey(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "").BusinessID
		c := createCustomer(t, db, biz, loyalty.CustomerInput{Email: loyalty.Some("ledger@example.com")})
		series := `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 20000) SELECT n FROM g`
		if db.Dialect() == sqlstore.Postgres {
			series = `SELECT n FROM generate_series(1, 20000) AS g(n)`
		}
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, intent, type_code, name, amount, points,
				visits, tier_amount, tier_points, created_at)
			SELECT $1, $2, 'reward', 4, 'Reward', 100, 1, 1, 100, 1, $3 FROM (`+series+`) AS s`, biz, c.ID, db.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SQL().ExecContext(ctx, `ANALYZE`); err != nil {
			t.Fatal(err)
		}
		query := sqlstore.EntriesByIDSQL(db.Dialect())
		var p string
		if db.Dialect() == sqlstore.Postgres {
			conn, err := db.SQL().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, `PREPARE entries(bigint[]) AS `+query); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, `DEALLOCATE entries; RESET plan_cache_mode`)
			// A page's 500 ids, planned for them (the first runs of a
			// prepared statement) and generically (the plan kept after).
			ids := make([]string, 500)
			for i := range ids {
				ids[i] = strconv.Itoa(i*40 + 1)
			}
			for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
				if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = `+mode); err != nil {
					t.Fatal(err)
				}
				p = explain(t, conn, `EXPLAIN EXECUTE entries('{`+strings.Join(ids, ",")+`}')`)
				if !strings.Contains(p, "Index Scan using transactions_pkey") || strings.Contains(p, "Seq Scan on transactions") {
					t.Errorf("%s: the entries are not read by key:\n%s", mode, p)
				}
			}
			return
		}
		p = explainSQLite(t, db.SQL(), strings.ReplaceAll(query, "$1", "'[1,2,3]'"))
		if !strings.Contains(p, "SEARCH t USING INTEGER PRIMARY KEY") {
			t.Errorf("the entries are not read by key:\n%s", p)
		}
	})
}

// explainSQLite returns SQLite's query plan of query on q (a database or
// one of its connections), a line per step.
func explainSQLite(t *testing.T, q queryer, query string) string {
	t.Helper()
	rows, err := q.QueryContext(ctx, `EXPLAIN QUERY PLAN `+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// explain runs an EXPLAIN on q and returns the plan's lines.
func explain(t *testing.T, q queryer, query string) string {
	t.Helper()
	return strings.Join(textColumn(t, q, query), "\n")
}

// TestCustomerReadWalksItsLots: the read behind GET /customers/{id}
// finds the balance's next expiry through point_lots_customer, never by
// reading the lots of every customer: on PostgreSQL as the generic plan a
// connection keeps once the statement has run a few times, made on a new
// (never analysed, empty) database, and again after ANALYZE saw the lots
// of 2,000 customers; on SQLite as it plans it.
func TestCustomerReadWalksItsLots(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		if db.Dialect() == sqlstore.SQLite {
			p := explainSQLite(t, db.SQL(), strings.NewReplacer("$1", "'b'", "$2", "'u'").Replace(sqlstore.CustomerByKeySQL(db.Dialect())))
			if !strings.Contains(p, "SEARCH l USING") || !strings.Contains(p, "point_lots_customer") || strings.Contains(p, "SCAN l") {
				t.Errorf("the read does not look the customer's lots up by key:\n%s", p)
			}
			return
		}
		conn := genericPlans(t, db)
		check := func(when string) {
			t.Helper()
			if _, err := conn.ExecContext(ctx, `PREPARE customer_read(text, text) AS `+sqlstore.CustomerByKeySQL(db.Dialect())); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, `DEALLOCATE customer_read`)
			p := explain(t, conn, `EXPLAIN EXECUTE customer_read('b', 'u')`)
			if strings.Contains(p, "Seq Scan on point_lots") || !strings.Contains(p, "point_lots_customer") {
				t.Errorf("%s: the generic plan does not look the customer's lots up by key:\n%s", when, p)
			}
		}
		check("new database")
		biz := createBusiness(t, db, "").BusinessID
		seedCustomersWithLots(t, db, biz, 2000)
		if _, err := conn.ExecContext(ctx, `ANALYZE point_lots`); err != nil {
			t.Fatal(err)
		}
		check("2,000 customers, analysed")
	})
}

// genericPlans is a connection of db on which every prepared statement is
// planned generically: the plan a connection keeps for good once a
// statement has run a few times. It is closed when the test ends.
func genericPlans(t *testing.T, db *sqlstore.DB) *sql.Conn {
	t.Helper()
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.ExecContext(context.Background(), `RESET plan_cache_mode`)
		conn.Close()
	})
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestBatchPlanReachesCustomersByKey plans the group writer's statement
// as the writer runs it on PostgreSQL, generically (batchConn), on a
// never-analysed database after a bulk load of 200,000 customers: each
// entry's customer is reached by its key, never by reading the table.
func TestBatchPlanReachesCustomersByKey(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "")
	seedCustomers(t, db, biz.BusinessID, 0, 200_000)
	conn := genericPlans(t, db)
	if _, err := conn.ExecContext(ctx, `PREPARE batch AS `+sqlstore.BatchSQL()); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `DEALLOCATE batch`)
	p := explain(t, conn, `EXPLAIN EXECUTE batch(`+strings.Repeat("NULL, ", 56)+`NULL)`)
	if strings.Contains(p, "Seq Scan on customers") || !strings.Contains(p, "customers_pkey") {
		t.Errorf("the generic plan of a batch does not reach the customers by key:\n%s", p)
	}
}

// TestPendingEventsReachedByIndex: events_number_pending (migration
// 00071, called by every reward batch) finds a business's unnumbered
// events by walking their partial index, with a custom plan or a generic
// one, even when the statistics were taken while every event was
// unnumbered (a seeding just written, the sequencer not yet run;
// autovacuum off): no scan of the events table, and no index entry read
// again at every call. Numbering moves an event out of the index and
// leaves its entry until a vacuum; only an index scan that meets such an
// entry marks it dead, a bitmap scan never does. A plain condition on
// seq, planned as a bitmap scan or a walk of every business's entries,
// made rewards 0.8x as fast, with 1.3x the PostgreSQL CPU each, in
// BenchmarkRewardByAmount.
func TestPendingEventsReachedByIndex(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "")
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO event_sequences (business_id, last_seq) VALUES ($1, 0)`, biz.BusinessID)
	exec(`INSERT INTO events (id, business_id, seq, type, created_at, data)
		SELECT md5(g::text), $1, NULL, 'customer.created', now(), '{}' FROM generate_series(1, 500) g`, biz.BusinessID)
	exec(`ANALYZE events`)
	// The function numbers them (the index walked from its first entry
	// to its last), then the ledger grows, all of it numbered.
	var n int64
	if err := conn.QueryRowContext(ctx, `SELECT events_number_pending($1)`, biz.BusinessID).Scan(&n); err != nil || n != 500 {
		t.Fatalf("events_number_pending = %d, %v; want the 500 unnumbered events", n, err)
	}
	exec(`UPDATE event_sequences SET last_seq = 500 WHERE business_id = $1`, biz.BusinessID)
	exec(`INSERT INTO events (id, business_id, seq, type, created_at, data)
		SELECT md5(g::text), $1, g, 'transaction.created', now(), '{}' FROM generate_series(1000, 20000) g`, biz.BusinessID)
	read := func() (seqScans, indexTuples int64) {
		t.Helper()
		exec(`SELECT pg_stat_force_next_flush()`)
		exec(`SELECT pg_stat_clear_snapshot()`)
		if err := conn.QueryRowContext(ctx, `SELECT t.seq_scan, i.idx_tup_read FROM pg_stat_user_tables t
			JOIN pg_stat_user_indexes i ON i.relid = t.relid AND i.indexrelname = 'events_pending'
			WHERE t.relid = 'events'::regclass`).Scan(&seqScans, &indexTuples); err != nil {
			t.Fatal(err)
		}
		return seqScans, indexTuples
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		exec(`SET plan_cache_mode = ` + mode)
		exec(`DISCARD PLANS`)
		if err := conn.QueryRowContext(ctx, `SELECT events_number_pending($1)`, biz.BusinessID).Scan(&n); err != nil || n != 0 {
			t.Fatalf("events_number_pending = %d, %v; want none to number", n, err)
		}
		seq0, idx0 := read()
		const calls = 20
		for range calls {
			if err := conn.QueryRowContext(ctx, `SELECT events_number_pending($1)`, biz.BusinessID).Scan(&n); err != nil || n != 0 {
				t.Fatalf("events_number_pending = %d, %v; want none to number", n, err)
			}
		}
		seq1, idx1 := read()
		if seq1 != seq0 || idx1-idx0 > calls {
			t.Errorf("%s: %d calls finding nothing to number scanned the events table %d times and read %d entries of its unnumbered events' index (the 500 numbered ones left there: read again at every call)",
				mode, calls, seq1-seq0, idx1-idx0)
		}
	}
	exec(`RESET plan_cache_mode`)
}

// TestUnsequencedFoundByIndex: the sequencer's two reads (is anything of
// this business unnumbered, at every GET /events; which businesses have
// something unnumbered, every round of the background sequencer) walk the
// unnumbered events' partial index, custom plan or generic, with
// statistics taken while every event was unnumbered: a plain condition on
// seq was then a scan of the whole events table each time.
func TestUnsequencedFoundByIndex(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "")
	for _, q := range []string{
		`INSERT INTO events (id, business_id, seq, type, created_at, data)
			SELECT md5(g::text), $1, NULL, 'customer.created', now(), '{}' FROM generate_series(1, 500) g`,
		`ANALYZE events`,
		`UPDATE events SET seq = n.rn FROM (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM events WHERE business_id = $1) AS n
			WHERE events.id = n.id`,
		`INSERT INTO events (id, business_id, seq, type, created_at, data)
			SELECT md5(g::text), $1, g, 'transaction.created', now(), '{}' FROM generate_series(1000, 20000) g`,
		`INSERT INTO event_sequences (business_id, last_seq) VALUES ($1, 20000)`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, biz.BusinessID)
		}
		if _, err := db.SQL().ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	first, businesses := sqlstore.UnsequencedSQL()
	conn := genericPlans(t, db)
	for name, q := range map[string]string{"first": first, "businesses": businesses} {
		if _, err := conn.ExecContext(ctx, `PREPARE `+name+` AS `+q); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(ctx, `DEALLOCATE `+name)
	}
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = `+mode); err != nil {
			t.Fatal(err)
		}
		for _, run := range []string{`EXECUTE first('` + biz.BusinessID + `')`, `EXECUTE businesses(100)`} {
			p := explain(t, conn, `EXPLAIN `+run)
			if strings.Contains(p, "Seq Scan on events") || !strings.Contains(p, "using events_pending") {
				t.Errorf("%s (%s) does not walk the unnumbered events' index:\n%s", run, mode, p)
			}
		}
	}
	// What they find.
	if n, err := db.SequenceEvents(ctx, biz.BusinessID); err != nil || n != 0 {
		t.Fatalf("SequenceEvents = %d, %v; nothing is unnumbered", n, err)
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO events (id, business_id, seq, type, created_at, data)
		VALUES ('zz-pending', $1, NULL, 'customer.updated', now(), '{}')`, biz.BusinessID); err != nil {
		t.Fatal(err)
	}
	if got, err := db.UnsequencedBusinesses(ctx, 10); err != nil || !slices.Equal(got, []string{biz.BusinessID}) {
		t.Fatalf("UnsequencedBusinesses = %v, %v; want [%s]", got, err, biz.BusinessID)
	}
	if n, err := db.SequenceEvents(ctx, biz.BusinessID); err != nil || n != 1 {
		t.Fatalf("SequenceEvents = %d, %v; want the one unnumbered event", n, err)
	}
}

// TestBatchPlanTakesSequencesInOrder: the batch takes its businesses'
// event_sequences rows (in events_number_pending, once per business) in
// the order of their ids, as it takes its customers in theirs, so that
// the batches of two instances sharing businesses never wait on each
// other in a circle (PostgreSQL would end one after a second and its
// entries would go one by one). A hashed aggregate hands the businesses
// out in hash order.
func TestBatchPlanTakesSequencesInOrder(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	conn := genericPlans(t, db)
	if _, err := conn.ExecContext(ctx, `PREPARE batch AS `+sqlstore.BatchSQL()); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `DEALLOCATE batch`)
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = `+mode); err != nil {
			t.Fatal(err)
		}
		p := explain(t, conn, `EXPLAIN VERBOSE EXECUTE batch(`+strings.Repeat("NULL, ", 56)+`NULL)`)
		start := strings.Index(p, "CTE g\n")
		if start < 0 {
			t.Fatalf("no CTE g in the plan:\n%s", p)
		}
		g := p[start+len("CTE g\n"):]
		if end := strings.Index(g, "CTE "); end >= 0 {
			g = g[:end]
		}
		if !strings.Contains(g, "events_number_pending(") || !strings.Contains(g, "Sort Key: x") || strings.Contains(g, "HashAggregate") {
			t.Errorf("%s: the batch does not number its businesses in the order of their ids:\n%s", mode, g)
		}
	}
}
