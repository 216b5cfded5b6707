// Package testenv gives tests fresh databases on every engine Loyalty
// supports: a SQLite file in a temporary directory, and a private schema
// on the PostgreSQL server named by LOYALTY_TEST_POSTGRES (default
// postgres://root@127.0.0.1:5432/test). Set LOYALTY_TEST_POSTGRES=off to run
// on SQLite alone; an unreachable server otherwise fails the test.
package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx database/sql driver, for schema set-up

	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// DefaultPostgres is the server the tests use unless told otherwise.
const DefaultPostgres = "postgres://root@127.0.0.1:5432/test?sslmode=disable"

// Engines lists the dialects a test should run on.
func Engines() []string {
	if os.Getenv("LOYALTY_TEST_POSTGRES") == "off" {
		return []string{sqlstore.SQLite}
	}
	return []string{sqlstore.SQLite, sqlstore.Postgres}
}

// ForEach runs fn as a subtest once per engine, with a fresh, empty,
// unmigrated database's DSN.
func ForEach(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Helper()
	for _, engine := range Engines() {
		t.Run(engine, func(t *testing.T) { fn(t, DSN(t, engine)) })
	}
}

// DSN returns the DSN of a fresh database on engine, removed when tb ends.
// A benchmark asking for PostgreSQL has its catalog checked first
// (CheckCatalog): skipped when it is bloated.
func DSN(tb testing.TB, engine string) string {
	tb.Helper()
	if engine == sqlstore.SQLite {
		return filepath.Join(tb.TempDir(), "loyalty.db")
	}
	checkCatalogOf(tb)
	base := os.Getenv("LOYALTY_TEST_POSTGRES")
	if base == "" {
		base = DefaultPostgres
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("testenv: open postgres: %v", err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		tb.Fatalf("testenv: postgres at %s is needed (set LOYALTY_TEST_POSTGRES=off to skip it): %v", base, err)
	}
	tb.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("testenv: bad LOYALTY_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open returns a migrated store on a fresh database of engine.
func Open(tb testing.TB, engine string) *sqlstore.DB {
	tb.Helper()
	db, err := sqlstore.Open(context.Background(), DSN(tb, engine))
	if err != nil {
		tb.Fatalf("testenv: open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		tb.Fatalf("testenv: migrate: %v", err)
	}
	return db
}

// PasswordCost is the argon2id cost of the services the end-to-end tests
// start (app.Config.PasswordCost): the least argon2 takes. At the default
// cost, hashing was 46 % of the e2e package's CPU profile (some 1,200
// hashes of 19 MiB, 30 ms each, and the collection of their memory); what
// those tests check of passwords does not depend on the cost, and
// internal/oauth's tests hash at the default.
var PasswordCost = oauth.Cost{MemoryKiB: 8, Passes: 1}

// RedisURL is the Redis the tests use: LOYALTY_TEST_REDIS_URL, default
// redis://127.0.0.1:6379/0; "off" skips tb.
func RedisURL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv("LOYALTY_TEST_REDIS_URL")
	if url == "off" {
		tb.Skip("LOYALTY_TEST_REDIS_URL=off")
	}
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	return url
}

// NATSURL is the NATS server (with JetStream) the tests use:
// LOYALTY_TEST_NATS_URL, default nats://127.0.0.1:4222; "off" skips tb.
func NATSURL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv("LOYALTY_TEST_NATS_URL")
	if url == "off" {
		tb.Skip("LOYALTY_TEST_NATS_URL=off")
	}
	if url == "" {
		url = "nats://127.0.0.1:4222"
	}
	return url
}
