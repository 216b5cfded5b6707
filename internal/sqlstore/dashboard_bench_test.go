package sqlstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// Scale of the dashboard benchmark: two years of a business with four
// branches (and the row of no branch) whose 10,000,000 ledger entries the
// rollups sum up, and 100,000 customers who visited over the last 120
// days.
const (
	benchDays      = 730
	benchBranches  = 4
	benchEntries   = 10_000_000
	benchCustomers = 100_000
)

// BenchmarkDashboard measures DashboardService.Summary of a one-year
// period, by day, over a business seeded straight in SQL: its cost
// depends on the days and the customers, not on the entries.
func BenchmarkDashboard(b *testing.B) {
	for _, engine := range testenv.Engines() {
		b.Run(engine, func(b *testing.B) {
			db := testenv.Open(b, engine)
			biz := createBusiness(b, db, "").BusinessID
			seedDashboard(b, db, biz)
			svc := &console.DashboardService{Store: db}
			today := time.Now().UTC()
			from, to := today.AddDate(-1, 0, 1).Format(loyalty.DayFormat), today.Format(loyalty.DayFormat)
			b.ResetTimer()
			var s console.Summary
			for b.Loop() {
				var err error
				if s, err = svc.Summary(ctx, biz, from, to, "", console.ByDay); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
			// Last visits spread evenly over 120 days: a quarter in 30, three in 90.
			if s.Members != benchCustomers || s.Active30/1000 != 25 || s.Active90/1000 != 75 || len(s.Series) != 365 || s.Visits == 0 {
				b.Fatalf("summary of the seeded business: %d members, %d/%d active, %d days, %d visits", s.Members, s.Active30,
					s.Active90, len(s.Series), s.Visits)
			}
		})
	}
}

// seedDashboard writes the rollups of benchEntries entries over benchDays
// days and branches, and benchCustomers customers with their balances
// and last visits.
func seedDashboard(tb testing.TB, db *sqlstore.DB, biz string) {
	tb.Helper()
	sqlDB := db.SQL()
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	perRow := int64(benchEntries / (benchDays * (benchBranches + 1)))
	start := time.Now().UTC().AddDate(0, 0, -benchDays+1)
	for d := range benchDays {
		day := start.AddDate(0, 0, d).Format(loyalty.DayFormat)
		for br := range benchBranches + 1 {
			branch := ""
			if br > 0 {
				branch = fmt.Sprintf("branch-%d", br)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO dashboard_days (business_id, branch_id, day, members_new, visits,
				revenue, points_issued, points_redeemed, referrals_paid) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
				biz, branch, day, 3, perRow, perRow*1250, perRow*12, perRow*4, 1); err != nil {
				tb.Fatal(err)
			}
		}
	}
	now := time.Now().UTC()
	series := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ` + fmt.Sprint(benchCustomers) + `) `
	lastVisit := `date('now', '-' || (i % 120) || ' days')`
	if db.Dialect() == sqlstore.Postgres {
		lastVisit = `to_char(current_date - (i % 120), 'YYYY-MM-DD')`
	}
	prefix := biz + "-u"
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO users (id, email, created_at, updated_at) SELECT $1 || i, $1 || i || '@bench.example', $2, $2 FROM n`,
			[]any{prefix, now}},
		{`INSERT INTO customers (business_id, user_id, points, created_at, updated_at) SELECT $1, $2 || i, i % 500, $3, $3 FROM n`,
			[]any{biz, prefix, now}},
		{`INSERT INTO dashboard_members (business_id, customer_id, last_visit_day) SELECT $1, $2 || i, ` + lastVisit + ` FROM n`,
			[]any{biz, prefix}},
	} {
		if _, err := tx.ExecContext(ctx, series+q.sql, q.args...); err != nil {
			tb.Fatalf("%s: %v", q.sql, err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}
