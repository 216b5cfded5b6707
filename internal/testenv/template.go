package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/loyalty/loyalty/internal/sqlstore"
)

// MigratedDSN returns the DSN of a database on engine with every
// migration applied and nothing else in it, that no other test uses until
// tb ends. A service opened on it finds nothing to migrate. A benchmark
// asking for PostgreSQL has its catalog checked first (CheckCatalog).
//
// On SQLite the database is a copy of one migrated once per test process:
// the copy is a file write, where migrating costs every test that starts
// services a second or more on a busy machine. On PostgreSQL it is a
// schema lent from a pool of migrated ones (pgpool.go), whose sessions
// commit without waiting for the WAL to reach the disk
// (synchronous_commit=off): what the service reads back is the same, only
// a crash of the server could lose the last commits, and these tests
// never crash it. End-to-end tests commit thousands of times, each a disk
// flush otherwise, which a busy machine's disk makes slow. The migrations
// themselves are tested on empty databases (DSN) by the store's tests.
func MigratedDSN(tb testing.TB, engine string) string {
	tb.Helper()
	if engine == sqlstore.Postgres {
		return lendSchema(tb)
	}
	dsn := DSN(tb, engine)
	image, err := sqliteTemplate()
	if err != nil {
		tb.Fatalf("testenv: migrated SQLite template: %v", err)
	}
	if err := os.WriteFile(dsn, image, 0o600); err != nil {
		tb.Fatalf("testenv: copy the migrated SQLite template: %v", err)
	}
	return dsn
}

// sqliteTemplate is the file of a SQLite database with every migration
// applied, made once per process and kept in memory (no file outlives
// the process, whichever test asks first).
var sqliteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "loyalty-template-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "loyalty.db")
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// Everything into the main file, so that the file alone is the
	// database.
	if _, err := db.SQL().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("%d bytes left in the write-ahead log after closing", fi.Size())
	}
	return os.ReadFile(path)
})
