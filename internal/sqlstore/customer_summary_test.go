package sqlstore_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestCustomerSummariesBackfill: migration 00054 writes each customer's
// summary (visits, spend, last visit and its branch, marketing consent)
// from the entries and consents stored before it; entries and consents
// written afterwards without a summary, as an instance of the previous
// release writes them during a rolling upgrade, are brought in by
// ResyncCustomerSummaries, which leaves the others as they are.
func TestCustomerSummariesBackfill(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		if err := db.MigrateDownTo(ctx, 53); err != nil {
			t.Fatal(err)
		}
		b := createBusiness(t, db, "")
		biz := b.BusinessID
		var main string
		if err := db.SQL().QueryRowContext(ctx, `SELECT id FROM branches WHERE business_id = $1 AND is_main`, biz).Scan(&main); err != nil {
			t.Fatal(err)
		}
		other := "br-" + biz[:8]
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO branches (id, business_id, name, created_at) VALUES ($1, $2, 'Other', $3)`,
			other, biz, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 5 {
			id := fmt.Sprintf("sum-%d-%s", i, biz[:8])
			for _, q := range []string{`INSERT INTO users (id, email, created_at, updated_at) VALUES ($1, $2, $3, $3)`,
				`INSERT INTO customers (business_id, user_id, email, created_at, updated_at) VALUES ($4, $1, $2, $3, $3)`} {
				args := []any{id, id + "@seed.example", time.Now().UTC(), biz}
				if !strings.Contains(q, "$4") {
					args = args[:3]
				}
				if _, err := db.SQL().ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			ids = append(ids, id)
		}
		day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		entry := func(customer, branch string, visits, spend int64, at time.Time) {
			t.Helper()
			var br any
			if branch != "" {
				br = branch
			}
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, branch_id, intent, type_code, name,
				visits, tier_amount, created_at) VALUES ($1, $2, $3, 'reward', 1, 'Purchase', $4, $5, $6)`,
				biz, customer, br, visits, spend, at); err != nil {
				t.Fatal(err)
			}
		}
		consent := func(customer string, email, sms, push bool) {
			t.Helper()
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO consents (business_id, customer_id, kind, allow_email, allow_sms, allow_push,
				source, changed_by, created_at) VALUES ($1, $2, 'marketing', $3, $4, $5, 'console', 'test', $6)`,
				biz, customer, email, sms, push, day); err != nil {
				t.Fatal(err)
			}
		}
		// 0: two visits, the last at the other branch, then an entry
		// without a visit later; 1: a visit naming no branch; 2: spend
		// without a visit; 3: consent given then taken back on e-mail;
		// 4: nothing.
		entry(ids[0], main, 1, 1000, day)
		entry(ids[0], other, 1, 2500, day.Add(time.Hour))
		entry(ids[0], main, 0, -500, day.Add(2*time.Hour))
		entry(ids[1], "", 1, 700, day)
		entry(ids[2], main, 0, 300, day)
		consent(ids[3], true, true, false)
		consent(ids[3], false, true, false)
		consent(ids[0], true, false, true)

		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		t1 := day.Add(time.Hour)
		want := map[string]string{
			ids[0]: summary(2, 3000, &t1, other, true, false, true),
			ids[1]: summary(1, 700, &day, "", false, false, false),
			ids[2]: summary(0, 300, nil, "", false, false, false),
			ids[3]: summary(0, 0, nil, "", false, true, false),
			ids[4]: summary(0, 0, nil, "", false, false, false),
		}
		checkSummaries(t, db, biz, ids, want, "after the migration")

		// What an instance of the previous release writes: entries and
		// consents alone.
		later := day.AddDate(0, 1, 0)
		entry(ids[4], other, 1, 900, later)
		entry(ids[1], main, 2, 100, later)
		consent(ids[4], true, true, true)
		if err := db.ResyncCustomerSummaries(ctx); err != nil {
			t.Fatal(err)
		}
		want[ids[4]] = summary(1, 900, &later, other, true, true, true)
		want[ids[1]] = summary(3, 800, &later, main, false, false, false)
		checkSummaries(t, db, biz, ids, want, "after the resync")
	})
}

func summary(visits, spend int64, last *time.Time, branch string, email, sms, push bool) string {
	at := "-"
	if last != nil {
		at = last.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("visits %d, spend %d, last visit %s at %q, consent %t/%t/%t", visits, spend, at, branch, email, sms, push)
}

func checkSummaries(t *testing.T, db *sqlstore.DB, biz string, ids []string, want map[string]string, when string) {
	t.Helper()
	for i, id := range ids {
		var visits, spend int64
		var last sql.NullTime
		var branch sql.NullString
		var email, sms, push bool
		if err := db.SQL().QueryRowContext(ctx, `SELECT visits_total, spend_total, last_visit_at, last_visit_branch,
			consent_email, consent_sms, consent_push FROM customers WHERE business_id = $1 AND user_id = $2`, biz, id).
			Scan(&visits, &spend, &last, &branch, &email, &sms, &push); err != nil {
			t.Fatal(err)
		}
		var at *time.Time
		if last.Valid {
			at = &last.Time
		}
		if got := summary(visits, spend, at, branch.String, email, sms, push); got != want[id] {
			t.Errorf("%s, customer %d: %s; want %s", when, i, got, want[id])
		}
	}
}

// TestCustomerSummaryPlans plans the statements of 00054's procedure
// resync_customer_summaries (marked "-- plan: NAME" in the migration,
// its variables as parameters) generically, as PL/pgSQL keeps them after
// a few batches, on a never-analysed PostgreSQL database after a bulk load
// of 20,000 customers with 200,000 entries and consents: each batch reaches
// its customers, their entries and their consents through their keys. The
// procedure as first written compared (business, customer) as rows, and
// its generic plan read the business's whole ledger for every batch (at
// 1,000,000 customers, two and a half hours instead of minutes).
func TestCustomerSummaryPlans(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "")
	seedCustomers(t, db, biz.BusinessID, 0, 20_000)
	for _, q := range []string{
		`INSERT INTO transactions (business_id, customer_id, intent, type_code, name, visits, tier_amount, created_at)
			SELECT business_id, user_id, 'reward', 4, 'Reward', 1, 1000, now() FROM customers, generate_series(1, 10) k WHERE business_id = $1`,
		`INSERT INTO consents (business_id, customer_id, kind, allow_email, allow_sms, allow_push, source, changed_by, created_at)
			SELECT business_id, user_id, 'marketing', true, false, false, 'console', 'seed', now() FROM customers WHERE business_id = $1`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q, biz.BusinessID); err != nil {
			t.Fatal(err)
		}
	}
	stmts := procedureStatements(t, filepath.Join("migrations", "postgres", "00054_segments.sql"))
	conn := genericPlans(t, db)
	for name, want := range map[string][]string{
		"lock":     {"Index Scan using customers_pkey on customers"},
		"activity": {"transactions_customer", "Index Cond: ((business_id = $1) AND (customer_id = ANY ($4)))", "customers_pkey on customers"},
		"consent":  {"consents_customer", "customers_pkey on customers"},
	} {
		q, ok := stmts[name]
		if !ok {
			t.Fatalf("00054 marks no statement %q", name)
		}
		stmt := "summary_" + name
		if _, err := conn.ExecContext(ctx, `PREPARE `+stmt+`(text, text, integer, text[]) AS `+q); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, q)
		}
		p := explain(t, conn, `EXPLAIN EXECUTE `+stmt+`('b', '', 500, ARRAY['c'])`)
		conn.ExecContext(ctx, `DEALLOCATE `+stmt)
		for _, w := range want {
			if !strings.Contains(p, w) {
				t.Errorf("the generic plan of %q lacks %q:\n%s", name, w, p)
			}
		}
		if strings.Contains(p, "Seq Scan") || strings.Contains(p, "Sort Key: c.user_id") {
			t.Errorf("the generic plan of %q reads a table or sorts the business's customers:\n%s", name, p)
		}
	}
}

// procedureStatements reads the statements marked "-- plan: NAME" in a
// migration, each up to its ";", with the procedure's variables as
// parameters: biz $1, u $2, batch $3, ids $4.
func procedureStatements(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("biz", "$1", "u", "$2", "batch", "$3", "ids", "$4")
	word := regexp.MustCompile(`\b(biz|u|batch|ids)\b`)
	out := map[string]string{}
	name := ""
	var cur []string
	for _, line := range strings.Split(string(b), "\n") {
		trim := strings.TrimSpace(line)
		if n, ok := strings.CutPrefix(trim, "-- plan: "); ok {
			name, cur = n, nil
			continue
		}
		if name == "" {
			continue
		}
		cur = append(cur, line)
		if strings.HasSuffix(trim, ";") {
			q := strings.TrimSuffix(strings.TrimSpace(strings.Join(cur, "\n")), ";")
			q = strings.Replace(q, " INTO ids", "", 1)
			out[name] = word.ReplaceAllStringFunc(q, vars.Replace)
			name = ""
		}
	}
	return out
}
