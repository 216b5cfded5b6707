package sqlstore_test

import (
	"crypto/md5"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestTierTotalsReadTheirCustomers loads a month of 200,000 entries of
// 20,000 customers of a business in bulk on a never-analysed PostgreSQL
// database and sums the month's tier totals of one customer (a customer's
// tier status, an earning rule on tiers) and of 100 (a page of the tier
// keeper), planned for the values and generically: each reads its
// customers' entries, never the business's month. Given the business and
// the month together, the planner walked the month's 200,000 entries by
// their creation index for 100 customers' 1,000 (and, in
// BenchmarkRewardWithTiers's business, for one customer's few).
func TestTierTotalsReadTheirCustomers(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "").BusinessID
	const customers, entries = 20_000, 200_000
	month := time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at, updated_at)
			SELECT md5($1 || g), 't-' || g || '@seed.example', $3::timestamptz, $3::timestamptz
			FROM generate_series(1, $2::int) g`,
		`INSERT INTO customers (business_id, user_id, email, country_code, created_at, updated_at)
			SELECT $1, md5($1 || g), 't-' || g || '@seed.example', 'US', $3::timestamptz, $3::timestamptz
			FROM generate_series(1, $2::int) g`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q, biz, customers, month); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, intent, type_code, name, amount, points,
			visits, tier_amount, tier_points, created_at)
		SELECT $1, md5($1 || (1 + g % $2)), 'reward', 4, 'Reward', 1000, 10, 1, 1000, 10, $4::timestamptz + g * interval '10 seconds'
		FROM generate_series(1, $3::int) g`, biz, customers, entries, month); err != nil {
		t.Fatal(err)
	}
	conn := genericPlans(t, db)
	for _, n := range []int{1, 100} {
		args := []any{biz, month, month.AddDate(0, 1, 0)}
		for g := 1; g <= n; g++ { // the ids the seed gave, md5(business || g)
			args = append(args, fmt.Sprintf("%x", md5.Sum([]byte(biz+strconv.Itoa(g)))))
		}
		for _, mode := range []string{"auto", "force_generic_plan"} {
			rows, pages, out := explainPages(t, conn, mode, sqlstore.TierTotalsSQL(n), args)
			// Each customer has 10 entries: a page for each, and its
			// index, is at most some 30 reads a customer.
			if most := 30 * n; rows != n || pages > most {
				t.Errorf("the totals of %d customers (plan_cache_mode %s): %d rows, %d pages read, want %d rows and at most %d pages:\n%s",
					n, mode, rows, pages, n, most, out)
			}
		}
	}
}
