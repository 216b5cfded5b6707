package sqlstore_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkLoneRewardByCustomers measures rewards written through
// AppendAlone (PostgreSQL's group-commit batch) from 16 clients on a
// never-analysed database, first with 1,000 customers and then, on the
// same database and connections (their statements prepared and planned
// while the table was small), after it grew to 200,000 by a bulk load
// that left the statistics as they were. The hot path must keep its index
// access whatever the planner's statistics say: the two figures stay
// within a few percent of each other.
func BenchmarkLoneRewardByCustomers(b *testing.B) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		b.Skip("PostgreSQL's batch; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(b, sqlstore.Postgres)
	biz := createBusiness(b, db, "")
	var ids []string
	for _, n := range []int{20, 1_000, 200_000} {
		ids = append(ids, seedCustomers(b, db, biz.BusinessID, len(ids), n)...)
		b.Run(fmt.Sprintf("customers=%d", n), func(b *testing.B) {
			b.SetParallelism(8) // 16 clients on 2 cores
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
				for pb.Next() {
					e := loyalty.Transaction{BusinessID: biz.BusinessID, CustomerID: ids[rng.IntN(len(ids))],
						Intent: loyalty.IntentReward, TypeCode: loyalty.TypeCodeReward, Name: "Reward", Amount: 1000,
						Points: 10, Visits: 1, TierAmount: 1000, TierPoints: 10, CreatedAt: db.Now()}
					if ok, err := db.AppendAlone(ctx, &e); !ok || err != nil {
						b.Fatalf("AppendAlone = %v, %v", ok, err)
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rewards/s")
		})
	}
}

// seedCustomers writes customers from+1..to of a business straight in SQL
// (insertCustomers) and returns their ids.
func seedCustomers(tb testing.TB, db *sqlstore.DB, businessID string, from, to int) []string {
	tb.Helper()
	insertCustomers(tb, db, businessID, from, to)
	rows, err := db.SQL().QueryContext(ctx, `SELECT user_id FROM customers WHERE business_id = $1 ORDER BY created_at, user_id OFFSET $2`, businessID, from)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// insertCustomers writes customers from+1..to of a business straight in
// SQL, reading nothing back (no ANALYZE: the statistics stay as a bulk
// load leaves them).
func insertCustomers(tb testing.TB, db *sqlstore.DB, businessID string, from, to int) {
	tb.Helper()
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at, updated_at)
			SELECT md5($1 || g), md5($1 || g) || '@seed.example', now(), now() FROM generate_series($3::int + 1, $2) g`,
		`INSERT INTO customers (business_id, user_id, email, created_at, updated_at)
			SELECT $1, md5($1 || g), md5($1 || g) || '@seed.example', now(), now() FROM generate_series($3::int + 1, $2) g`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q, businessID, to, from); err != nil {
			tb.Fatal(err)
		}
	}
}
