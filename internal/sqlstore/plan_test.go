package sqlstore_test

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

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
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `RESET plan_cache_mode`)
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

// explain runs an EXPLAIN on q and returns the plan's lines.
func explain(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string) string {
	t.Helper()
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}
