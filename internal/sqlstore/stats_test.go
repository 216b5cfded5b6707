package sqlstore_test

import (
	"fmt"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestStatisticsWithoutSamples: Analyze gives the planner the tables'
// row counts on both engines, and SQLite keeps none of the sample
// statistics that make it compile a statement again at every execution
// (stats.go): neither after Analyze nor, once the store is opened again,
// after an ANALYZE by hand.
func TestStatisticsWithoutSamples(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			dsn := testenv.DSN(t, engine)
			db := open(t, dsn)
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			biz := createBusiness(t, db, "")
			for i := range 30 {
				createCustomer(t, db, biz.BusinessID, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("stats-%d@shop.example", i))})
			}
			if err := db.Analyze(ctx); err != nil {
				t.Fatal(err)
			}
			sqlite := engine == sqlstore.SQLite
			counted := func(db *sqlstore.DB) int64 {
				t.Helper()
				q := `SELECT reltuples::bigint FROM pg_class WHERE oid = 'customers'::regclass`
				if sqlite {
					// sqlite_stat1's stat begins with the rows of the index's table.
					q = `SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE tbl = 'customers' AND idx = 'customers_email'`
				}
				var n int64
				if err := db.SQL().QueryRowContext(ctx, q).Scan(&n); err != nil {
					t.Fatalf("the planner's row count of customers: %v", err)
				}
				return n
			}
			if n := counted(db); n != 30 {
				t.Errorf("after Analyze the planner counts %d customers, want 30", n)
			}
			if !sqlite {
				return
			}
			samples := func(db *sqlstore.DB) (n int) {
				t.Helper()
				if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_stat4`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			if n := samples(db); n != 0 {
				t.Errorf("after Analyze, SQLite keeps %d sample statistics (sqlite_stat4)", n)
			}
			if _, err := db.SQL().ExecContext(ctx, "ANALYZE"); err != nil {
				t.Fatal(err)
			}
			if samples(db) == 0 {
				t.Fatal("an ANALYZE by hand left no sample statistics: this SQLite is built without them, and the test shows nothing")
			}
			db.Close()
			again := open(t, dsn)
			if n := samples(again); n != 0 {
				t.Errorf("opened again after an ANALYZE by hand, the store keeps %d sample statistics", n)
			}
			if n := counted(again); n != 30 {
				t.Errorf("opened again, the planner counts %d customers, want 30", n)
			}
		})
	}
}
