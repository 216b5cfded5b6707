package sqlstore_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestCustomerFiltersReadTheirMatches loads 200,000 customers of a
// business in bulk on a never-analysed PostgreSQL database (autovacuum
// off, or a table just loaded), each with its own join and update time,
// e-mail and phone, and runs the count and page 1 of GET /customers under
// each filter of the spec, as the store writes them, both as the plan
// made for the values and as a prepared statement's generic plan: each
// reads a few pages for its few matches, never the business's customers
// (some 6,000 pages). Written with the unfiltered list's test of
// activeness, an e-mail or phone filter read them all, and the page of
// the newest by update time walked them from the oldest.
func TestCustomerFiltersReadTheirMatches(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's planner; LOYALTY_TEST_POSTGRES=off")
	}
	db := testenv.Open(t, sqlstore.Postgres)
	biz := createBusiness(t, db, "")
	const n = 200_000
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at, updated_at)
			SELECT md5($1 || g), 'f-' || g || '@seed.example', $3::timestamptz + g * interval '1 second', $3::timestamptz
			FROM generate_series(1, $2::int) g`,
		`INSERT INTO customers (business_id, user_id, email, phone, country_code, created_at, updated_at)
			SELECT $1, md5($1 || g), 'f-' || g || '@seed.example', '+1' || (2122000000 + g), 'US',
				$3::timestamptz + g * interval '1 second', $3::timestamptz + g * interval '1 second'
			FROM generate_series(1, $2::int) g`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q, biz.BusinessID, n, base); err != nil {
			t.Fatal(err)
		}
	}
	at := func(i int) string { return base.Add(time.Duration(i) * time.Second).Format(time.RFC3339) }
	conn := genericPlans(t, db)
	for name, filter := range map[string]string{
		"email eq":           "email=eq|f-777@seed.example",
		"email in":           "email=in|f-7@seed.example,f-70000@seed.example,f-199999@seed.example",
		"phone eq":           "phone=eq|+12122012345",
		"created_at between": "created_at=between|" + at(100_000) + "," + at(100_099),
		"created_at lt":      "created_at=lt|" + at(101),
		"updated_at gt":      "updated_at=gt|" + at(n-100),
	} {
		t.Run(name, func(t *testing.T) {
			field, value, _ := strings.Cut(filter, "=")
			q, err := loyalty.ParseListQuery(url.Values{field: {value}}, loyalty.CustomerListSpec("US"))
			if err != nil {
				t.Fatal(err)
			}
			count, page, countArgs, pageArgs, err := sqlstore.CustomerListSQL(sqlstore.Postgres, biz.BusinessID, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []struct {
				what string
				sql  string
				args []any
			}{{"count", count, countArgs}, {"page", page, pageArgs}} {
				for _, mode := range []string{"auto", "force_generic_plan"} {
					_, pages, out := explainPages(t, conn, mode, s.sql, s.args)
					if pages > 500 {
						t.Errorf("%s (plan_cache_mode %s) reads %d pages for its matches:\n%s", s.what, mode, pages, out)
					}
				}
			}
		})
	}
}

// explainPages runs query with args on conn under plan_cache_mode mode,
// as a prepared statement, through EXPLAIN (ANALYZE, BUFFERS): the rows
// its top node gave, the pages it touched (in the buffers or read into
// them) and the plan.
func explainPages(t *testing.T, conn *sql.Conn, mode, query string, args []any) (rows, pages int, plan string) {
	t.Helper()
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = `+mode); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `PREPARE explained AS `+query); err != nil {
		t.Fatal(err)
	}
	err := conn.QueryRowContext(ctx, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE explained(`+literals(args)+`)`).Scan(&plan)
	conn.ExecContext(ctx, `DEALLOCATE explained`)
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
	if err := json.Unmarshal([]byte(plan), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("EXPLAIN: %v\n%s", err, plan)
	}
	return plans[0].Plan.Rows, plans[0].Plan.Hit + plans[0].Plan.Read, plan
}

// literals writes args as SQL literals, for EXECUTE.
func literals(args []any) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = literal(a)
	}
	return strings.Join(out, ", ")
}

// literal writes v as an SQL literal.
func literal(v any) string {
	switch v := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case time.Time:
		return "'" + v.UTC().Format(time.RFC3339Nano) + "'"
	default:
		return fmt.Sprint(v)
	}
}
