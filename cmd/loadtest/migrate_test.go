package main

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestMigrationStalls is the migrate scenario at a small size: on 20,000
// customers with 200,000 entries, while the previous release's binary
// serves rewards from 12 clients, every migration of this tree after the
// previous release's holds up no reward for a second or more, and no
// reward fails. It builds the previous release from the repository's
// history (deploy/previous-release); without that history (a shallow
// clone) it is skipped, unless CI is set.
func TestMigrationStalls(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("migrations run while instances serve on PostgreSQL only; LOYALTY_TEST_POSTGRES=off")
	}
	if testing.Short() {
		t.Skip("builds the previous release and seeds 200,000 entries")
	}
	ctx := context.Background()
	bin, from := previousRelease(t)
	rows, err := measureMigrations(ctx, migrateConfig{dsn: testenv.DSN(t, sqlstore.Postgres), bin: bin, from: from,
		customers: 20_000, perCustomer: 10, clients: 12, interval: 300 * time.Millisecond, settle: 3 * time.Second, logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		if r.stall >= time.Second || r.failed > 0 {
			t.Errorf("migration %s: %s; want no gap of a second (with no migration: %s)", r.name, r, rows[0])
		}
	}
}

// previousRelease is the previous release's binary and its last
// migration, built from the repository's history.
func previousRelease(t *testing.T) (bin string, baseline int64) {
	t.Helper()
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	commit, err := testenv.PreviousRelease(root)
	if err != nil {
		t.Fatal(err)
	}
	bin, err = testenv.BuildRelease(ctx, root, commit, t.Logf)
	if errors.Is(err, testenv.ErrNoHistory) && os.Getenv("CI") == "" {
		t.Skipf("%v: a full clone is needed", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if baseline, err = testenv.ReleaseBaseline(ctx, root, commit); err != nil {
		t.Fatal(err)
	}
	return bin, baseline
}
