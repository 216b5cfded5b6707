package sqlstore_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestBirthdayPassReadsTheDaysMembers loads 100,000 members of a business
// in bulk (never analysed), their birthdays spread over the year and one
// in ten without one, and runs a birthday automation's batch as the
// runner does (Candidates: the day's members after a cursor, in id
// order, leaving out those it has run for this year): it finds exactly
// that day's members still to run, and reads them by
// customers_birthday, not every member of the business in id order (on
// PostgreSQL both as planned for the values and as a prepared
// statement's generic plan; counted in pages). The same for the two days
// of a leap-day birthday kept on February 28th.
func TestBirthdayPassReadsTheDaysMembers(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "").BusinessID
		const n = 100_000
		start := time.Now()
		loadBirthdays(t, db, biz, n)
		t.Logf("%d members loaded in %s", n, time.Since(start).Round(time.Millisecond))
		// A birthday automation that has run for some of March 15th's
		// members already: its pass leaves them out (NotRun), but not one
		// run under another key (last year's birthday).
		b, err := db.Business(ctx, biz)
		if err != nil {
			t.Fatal(err)
		}
		auto, err := (&loyalty.AutomationService{Store: db}).Save(ctx, b, "", loyalty.AutomationInput{Name: loyalty.Some("Birthday"),
			Enabled: loyalty.Some(false), Trigger: loyalty.Some(loyalty.AutomationTrigger{Type: loyalty.TriggerBirthday}),
			Actions: loyalty.Some([]loyalty.AutomationAction{{Type: loyalty.ActionAddTag, Tag: "birthday"}})})
		if err != nil {
			t.Fatal(err)
		}
		run := map[int]string{73: "birthday 2026", 438: "birthday 2026", 803: "birthday 2025"} // all born on March 15th
		for g, key := range run {
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO automation_runs (automation_id, customer_id, run_key, business_id, step, state, due_at, started_at)
				VALUES ($1, $2, $3, $4, 1, 'done', $5, $5)`, auto.ID, memberID(biz, g), key, biz, time.Now().UTC()); err != nil {
				t.Fatal(err)
			}
		}
		days := [][]string{{"03-15"}, {"02-28", "02-29"}}
		queries := make([]string, len(days))
		args := make([][]any, len(days))
		want := make([]int, len(days))
		for i, d := range days {
			// The members of those days, by the load's rule (1990 has no
			// February 29th).
			var members []string
			for g := 1; g <= n; g++ {
				if g%10 != 0 && run[g] != "birthday 2026" && slices.Contains(d, time.Date(1990, 1, 1+g%365, 0, 0, 0, 0, time.UTC).Format("01-02")) {
					members = append(members, memberID(biz, g))
				}
			}
			slices.Sort(members)
			crit := loyalty.CustomerCriteria{BirthDays: d, NotRun: &loyalty.RunCriterion{AutomationID: auto.ID, Key: "birthday 2026"}}
			var got []string
			for after := ""; ; {
				page, err := db.Candidates(ctx, biz, crit, after, 100)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range page {
					got = append(got, c.CustomerID)
				}
				if len(page) < 100 {
					break
				}
				after = page[len(page)-1].CustomerID
			}
			if !slices.Equal(got, members) {
				t.Fatalf("%v: the pass found %d members, want the %d of those days", d, len(got), len(members))
			}
			// A batch from the middle of the pass.
			queries[i], args[i] = sqlstore.CandidatesSQL(db.Dialect(), biz, crit, members[len(members)/2], 500)
			want[i] = len(members) - len(members)/2 - 1
		}
		if db.Dialect() == sqlstore.SQLite {
			// Planned as a new database does (no statistics), and once
			// analysed (sqlite_stat1), on a connection that loaded them.
			for _, when := range []string{"new", "analysed"} {
				if when == "analysed" {
					if err := db.Analyze(ctx); err != nil {
						t.Fatal(err)
					}
				}
				conn, err := db.SQL().Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := conn.ExecContext(ctx, `ANALYZE sqlite_schema`); err != nil {
					t.Fatal(err)
				}
				for i, d := range days {
					p := explainSQLite(t, conn, sqliteLiterals(queries[i], args[i]))
					if !strings.Contains(p, "customers_birthday") {
						t.Errorf("%v, %s: the pass does not read the members by their birthday:\n%s", d, when, p)
					}
				}
				conn.Close()
			}
			return
		}
		conn := genericPlans(t, db)
		for i, d := range days {
			for _, mode := range []string{"auto", "force_generic_plan"} {
				rows, pages, plan := explainPages(t, conn, mode, queries[i], args[i])
				// The day's members lie on pages of their own; the
				// business's members fill some 4,000.
				if rows != want[i] || pages > 4*want[i] {
					t.Errorf("%v (plan_cache_mode %s): %d members read in %d pages, want %d in at most %d:\n%s",
						d, mode, rows, pages, want[i], 4*want[i], plan)
				}
			}
		}
	})
}

// memberID is the id loadBirthdays gives member g of a business.
func memberID(businessID string, g int) string { return fmt.Sprintf("%s-%06d", businessID, g) }

// loadBirthdays writes members 1..n of a business straight in SQL:
// member g born on 1990-01-01 plus g%365 days, or without a birth date
// when g is a multiple of 10.
func loadBirthdays(tb testing.TB, db *sqlstore.DB, businessID string, n int) {
	tb.Helper()
	series, id := `SELECT g FROM generate_series(1, $2::int) g`, `$1 || '-' || lpad(g::text, 6, '0')`
	born := `CASE WHEN g % 10 = 0 THEN '' ELSE to_char(date '1990-01-01' + g % 365, 'YYYY-MM-DD') END`
	if db.Dialect() == sqlstore.SQLite {
		series = `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < $2) SELECT g FROM s`
		id = `$1 || '-' || printf('%06d', g)`
		born = `CASE WHEN g % 10 = 0 THEN '' ELSE date('1990-01-01', '+' || (g % 365) || ' days') END`
	}
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at, updated_at)
			SELECT ` + id + `, ` + id + ` || '@seed.example', $3, $3 FROM (` + series + `) m`,
		`INSERT INTO customers (business_id, user_id, email, birth_date, created_at, updated_at)
			SELECT $1, ` + id + `, ` + id + ` || '@seed.example', ` + born + `, $3, $3 FROM (` + series + `) m`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q, businessID, n, time.Now().UTC()); err != nil {
			tb.Fatal(err)
		}
	}
}

// sqliteLiterals puts args into query as SQL literals, for EXPLAIN QUERY
// PLAN (the highest-numbered parameters first, so that $1 does not
// replace the start of $12).
func sqliteLiterals(query string, args []any) string {
	for i := len(args); i >= 1; i-- {
		query = strings.ReplaceAll(query, fmt.Sprintf("$%d", i), literal(args[i-1]))
	}
	return query
}
