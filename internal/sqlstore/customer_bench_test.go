package sqlstore_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkCustomerRead measures the read behind GET /customers/{id}
// (DB.Customer: the profile and the balance with its next expiry) of a
// random customer among 20,000, each with two lots of points, one of
// them expiring; bare is the same lookup of four columns, as the load
// test's bare server reads it, for the ratio.
func BenchmarkCustomerRead(b *testing.B) {
	for _, engine := range testenv.Engines() {
		db := testenv.Open(b, engine)
		biz := createBusiness(b, db, "")
		ids := seedCustomersWithLots(b, db, biz.BusinessID, 20_000)
		b.Run(engine+"/store", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
				for pb.Next() {
					c, err := db.Customer(ctx, biz.BusinessID, ids[rng.IntN(len(ids))])
					if err != nil || c.Balance.Points != 15 || c.Balance.Expiring != 5 {
						b.Fatalf("Customer = %+v, %v; want 15 points, 5 of them expiring", c.Balance, err)
					}
				}
			})
		})
		b.Run(engine+"/bare", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
				for pb.Next() {
					var id, email string
					var points, giftcard int64
					if err := db.SQL().QueryRowContext(ctx, `SELECT user_id, email, points, giftcard FROM customers
						WHERE business_id = $1 AND user_id = $2 AND deleted_at IS NULL`, biz.BusinessID, ids[rng.IntN(len(ids))]).
						Scan(&id, &email, &points, &giftcard); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// seedCustomersWithLots writes n customers of a business straight in SQL,
// each with 15 points in two active lots, 10 that never expire and 5 that
// expire in a year, and returns their ids.
func seedCustomersWithLots(tb testing.TB, db *sqlstore.DB, businessID string, n int) []string {
	tb.Helper()
	now := db.Now().UTC()
	series := `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < CAST($2 AS INTEGER)) `
	lots := series + `INSERT INTO point_lots (business_id, customer_id, earned, remaining, activates_at, expires_at, state)
		SELECT $1, $1 || '-' || i, $4, $4, $3, $5, 'active' FROM g`
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{series + `INSERT INTO users (id, email, created_at, updated_at)
			SELECT $1 || '-' || i, $1 || '-' || i || '@seed.example', $3, $3 FROM g`, nil},
		{series + `INSERT INTO customers (business_id, user_id, email, points, created_at, updated_at)
			SELECT $1, $1 || '-' || i, $1 || '-' || i || '@seed.example', 15, $3, $3 FROM g`, nil},
		{lots, []any{10, nil}},
		{lots, []any{5, now.AddDate(1, 0, 0)}},
	} {
		if _, err := db.SQL().ExecContext(ctx, q.sql, append([]any{businessID, n, now}, q.args...)...); err != nil {
			tb.Fatal(err)
		}
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", businessID, i+1)
	}
	return ids
}
