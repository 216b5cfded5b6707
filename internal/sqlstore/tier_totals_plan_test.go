package sqlstore_test

import (
	"encoding/json"
	"slices"
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
		rows, err := db.SQL().QueryContext(ctx, `SELECT md5($1 || g) FROM generate_series(1, $2::int) g`, biz, n)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			args = append(args, id)
		}
		rows.Close()
		for _, mode := range []string{"auto", "force_generic_plan"} {
			if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = `+mode); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, `PREPARE totals AS `+sqlstore.TierTotalsSQL(n)); err != nil {
				t.Fatal(err)
			}
			var out string
			err := conn.QueryRowContext(ctx, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE totals(`+literals(args)+`)`).Scan(&out)
			conn.ExecContext(ctx, `DEALLOCATE totals`)
			if err != nil {
				t.Fatal(err)
			}
			var plans []struct {
				Plan struct {
					Rows int `json:"Actual Rows"`
					Hit  int `json:"Shared Hit Blocks"`
					Read int `json:"Shared Read Blocks"`
				}
			}
			if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
				t.Fatalf("EXPLAIN: %v\n%s", err, out)
			}
			// Each customer has 10 entries: a page for each, and its
			// index, is at most some 30 reads a customer.
			if pages, most := plans[0].Plan.Hit+plans[0].Plan.Read, 30*n; plans[0].Plan.Rows != n || pages > most {
				t.Errorf("the totals of %d customers (plan_cache_mode %s): %d rows, %d pages read, want %d rows and at most %d pages:\n%s",
					n, mode, plans[0].Plan.Rows, pages, n, most, out)
			}
		}
	}
}
