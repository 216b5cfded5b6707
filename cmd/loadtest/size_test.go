package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
)

// TestSizeScenarioSmall is the size scenario at a small size on each
// engine: every list answers with the meta.total its filter must give at
// both sizes (the scenario refuses to measure otherwise), every request
// of the runs (of a list and of the reward: 3 s each; under a loaded
// clean-clone CI the first rewards of a new PostgreSQL site took over a
// second) is answered 200, and the figures file has a line for each at
// each size, for benchstat.
func TestSizeScenarioSmall(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("needs wrk (apt-get install wrk)")
	}
	if testing.Short() {
		t.Skip("seeds two businesses and drives both with wrk")
	}
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			dsn := testenv.DSN(t, engine)
			big, err := startSite(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer big.close()
			out := t.TempDir()
			o := options{conns: 2, threads: 1, dur: 3 * time.Second, small: 1_200, customers: 2_500, perCustomer: 2,
				pairs: 1, outDir: out, sizeOnly: "^(customers created_at between|reward)$"}
			if err := sizeScenario(ctx, big, dsn, o); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(out, "size-results.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []string{"customers created_at between", "reward"} {
				for _, n := range []string{"1200", "2500"} {
					line := "BenchmarkSize/op=" + strings.ReplaceAll(op, " ", "_") + "/customers=" + n + " "
					if !strings.Contains(string(b), line) {
						t.Errorf("no figure for %s at %s customers in:\n%s", op, n, b)
					}
				}
			}
		})
	}
}
