package sqlstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestMigrationGivesWay: a migration whose schema change waits behind a
// long transaction (here a read of the outbox held open for 4 s, which
// 00055's ALTER TABLE outbox must wait for) gives up after
// MigrationLockTimeout instead of holding up every statement queued behind
// it, and is tried again until it goes through once the transaction ends.
func TestMigrationGivesWay(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("PostgreSQL's locks; LOYALTY_TEST_POSTGRES=off")
	}
	db, err := sqlstore.Open(ctx, testenv.DSN(t, sqlstore.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.MigrateTo(ctx, 54); err != nil {
		t.Fatal(err)
	}
	long, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer long.Rollback()
	if _, err := long.ExecContext(ctx, `SELECT COUNT(*) FROM outbox`); err != nil {
		t.Fatal(err)
	}
	migrated := make(chan error, 1)
	go func() {
		_, err := db.Migrate(ctx)
		migrated <- err
	}()
	// Reads of the outbox meanwhile: each queues behind the ALTER's
	// request while it waits, and no longer.
	held := time.Now().Add(4 * time.Second)
	var worst time.Duration
	for time.Now().Before(held) {
		start := time.Now()
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := db.SQL().ExecContext(rctx, `SELECT 1 FROM outbox LIMIT 1`)
		cancel()
		if err != nil {
			long.Rollback()
			<-migrated
			t.Fatalf("a read of the outbox behind the migration: %v after %s", err, time.Since(start).Round(time.Millisecond))
		}
		worst = max(worst, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-migrated:
		t.Fatalf("the migration ended while the long transaction held the outbox: %v", err)
	default:
	}
	if err := long.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-migrated:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the migration did not go through within 30 s of the long transaction's end")
	}
	if v, err := db.MigrationVersion(ctx); err != nil || v < 60 {
		t.Errorf("schema at %d (%v) after the migration", v, err)
	}
	t.Logf("longest read of the outbox while the migration waited: %s", worst.Round(time.Millisecond))
	if worst >= 4*sqlstore.MigrationLockTimeout {
		t.Errorf("a read of the outbox waited %s behind the migration; want under %s", worst, 4*sqlstore.MigrationLockTimeout)
	}
}
