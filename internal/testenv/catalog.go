package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/loyalty/loyalty/internal/pgcatalog"
)

// BloatedCatalogEnv names the variable that lets a benchmark run on a
// bloated PostgreSQL catalog: set to "run", the benchmark logs the warning
// and goes on; unset, it is skipped.
const BloatedCatalogEnv = "LOYALTY_BENCH_BLOATED_CATALOG"

var (
	catalogOnce  sync.Once
	catalogBloat pgcatalog.Bloat
	catalogErr   error
)

// CheckCatalog measures the system catalogs of the PostgreSQL database of
// LOYALTY_TEST_POSTGRES once per process (pgcatalog) and, when they are
// bloated, skips benchmark b with the reason, unless BloatedCatalogEnv is
// "run", when it logs the warning and lets it run. Either way the warning
// also goes to standard error, which the loops of docs/measuring.md do not
// filter. A benchmark on a bloated catalog measures the catalog: connecting
// and planning were measured at 0.6× their speed on a vacuumed one.
//
// DSN and MigratedDSN call it for every benchmark that asks them for a
// PostgreSQL database; a benchmark that opens PostgreSQL another way
// should call it first.
func CheckCatalog(b *testing.B) {
	b.Helper()
	catalogOnce.Do(func() {
		db, err := sql.Open("pgx", postgresBase())
		if err != nil {
			catalogErr = err
			return
		}
		defer db.Close()
		catalogBloat, catalogErr = pgcatalog.Measure(context.Background(), db)
	})
	if catalogErr != nil {
		b.Fatalf("testenv: measure the PostgreSQL catalog: %v", catalogErr)
	}
	w := catalogBloat.Warning()
	if w == "" {
		return
	}
	if os.Getenv(BloatedCatalogEnv) == "run" {
		fmt.Fprintf(os.Stderr, "%s: %s (running anyway: %s=run)\n", b.Name(), w, BloatedCatalogEnv)
		b.Logf("%s (running anyway: %s=run)", w, BloatedCatalogEnv)
		return
	}
	fmt.Fprintf(os.Stderr, "%s: SKIPPED: %s (set %s=run to measure anyway)\n", b.Name(), w, BloatedCatalogEnv)
	b.Skipf("%s (set %s=run to measure anyway)", w, BloatedCatalogEnv)
}

// checkCatalogOf runs CheckCatalog when tb is a benchmark.
func checkCatalogOf(tb testing.TB) {
	if b, ok := tb.(*testing.B); ok {
		b.Helper()
		CheckCatalog(b)
	}
}
