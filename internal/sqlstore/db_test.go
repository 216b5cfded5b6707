package sqlstore_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// open opens dsn without migrating it, closing it when the test ends.
func open(tb testing.TB, dsn string) *sqlstore.DB {
	tb.Helper()
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func migrationFiles(tb testing.TB, dialect string) int {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("migrations", dialect, "*.sql"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no migrations for %s: %v", dialect, err)
	}
	return len(files)
}

func TestMigrate(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		db := open(t, dsn)
		n, err := db.Migrate(ctx)
		if want := migrationFiles(t, db.Dialect()); err != nil || n != want {
			t.Fatalf("first Migrate = %d, %v; want %d (every file)", n, err, want)
		}
		if n, err := db.Migrate(ctx); err != nil || n != 0 {
			t.Errorf("second Migrate = %d, %v; want 0", n, err)
		}
		// Another instance starting on the same database finds nothing to do.
		other := open(t, dsn)
		if n, err := other.Migrate(ctx); err != nil || n != 0 {
			t.Errorf("Migrate from a second handle = %d, %v; want 0", n, err)
		}
		if err := other.Ping(ctx); err != nil {
			t.Errorf("Ping: %v", err)
		}
		// The schema is usable.
		if _, err := db.CreateCoalition(ctx, "Mall", "key-"+loyalty.NewID()); err != nil {
			t.Errorf("CreateCoalition after Migrate: %v", err)
		}
	})
}

func TestOpenSQLiteCreatesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "loyalty.db")
	db := open(t, "sqlite:"+path)
	if db.Dialect() != sqlstore.SQLite {
		t.Errorf("Dialect = %q", db.Dialect())
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: %v", err)
	}
}

func TestOpenBadPostgresURL(t *testing.T) {
	if _, err := sqlstore.Open(ctx, "postgres://user@127.0.0.1:1/nowhere?connect_timeout=2"); err == nil {
		t.Error("Open of an unreachable server succeeded")
	}
}

func TestSecretIsStable(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		a := open(t, dsn)
		if _, err := a.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		b := open(t, dsn)

		// Two instances asking at once on first use all get one value.
		var wg sync.WaitGroup
		got := make([][]byte, 10)
		errs := make([]error, 10)
		for i := range got {
			db := a
			if i%2 == 1 {
				db = b
			}
			wg.Go(func() { got[i], errs[i] = db.Secret(ctx, "hmac") })
		}
		wg.Wait()
		for i := range got {
			if errs[i] != nil {
				t.Fatalf("Secret: %v", errs[i])
			}
			if len(got[i]) != 32 || !bytes.Equal(got[i], got[0]) {
				t.Fatalf("Secret call %d = %x, want the same 32 bytes as call 0 (%x)", i, got[i], got[0])
			}
		}
		again, err := b.Secret(ctx, "hmac")
		if err != nil || !bytes.Equal(again, got[0]) {
			t.Errorf("a later call = %x, %v; want %x", again, err, got[0])
		}
		other, err := a.Secret(ctx, "csrf")
		if err != nil || len(other) != 32 || bytes.Equal(other, got[0]) {
			t.Errorf("another name = %x, %v; want its own 32 bytes", other, err)
		}
		if bytes.Equal(got[0], make([]byte, 32)) {
			t.Error("the secret is all zeros")
		}
	})
}

func TestWithTxTimeAndRollback(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		paris := time.FixedZone("CEST", 2*3600)
		db.Clock = func() time.Time { return time.Date(2026, 6, 1, 14, 0, 0, 987654321, paris) }
		want := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		sentinel := loyalty.Errorf(loyalty.EForbidden, "stop")
		err := db.WithTx(ctx, func(tx loyalty.Tx) error {
			if got := tx.Now(); !got.Equal(want) || got.Location() != time.UTC {
				t.Errorf("tx.Now() = %v, want %v: UTC, whole seconds", got, want)
			}
			u := loyalty.User{ID: loyalty.NewID(), Email: "gone@example.com", CreatedAt: tx.Now(), UpdatedAt: tx.Now()}
			if err := tx.InsertUser(ctx, &u); err != nil {
				t.Fatal(err)
			}
			return sentinel
		})
		if err != sentinel {
			t.Errorf("WithTx returned %v, want the domain error of fn unchanged", err)
		}
		err = db.WithTx(ctx, func(tx loyalty.Tx) error {
			_, err := tx.UserByEmail(ctx, "gone@example.com")
			return err
		})
		wantCode(t, err, loyalty.ENotFound)
	})
}

func TestUniqueViolationNamesField(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		insert := func(u loyalty.User) error {
			return db.WithTx(ctx, func(tx loyalty.Tx) error {
				u.ID, u.CreatedAt, u.UpdatedAt = loyalty.NewID(), tx.Now(), tx.Now()
				return tx.InsertUser(ctx, &u)
			})
		}
		if err := insert(loyalty.User{Email: "ann@example.com", Phone: "+16502530000"}); err != nil {
			t.Fatal(err)
		}
		wantInvalid(t, insert(loyalty.User{Email: "ann@example.com"}), "email")
		wantInvalid(t, insert(loyalty.User{Phone: "+16502530000"}), "phone")
		// Many people without a phone (or without an e-mail) are not a conflict.
		for _, u := range []loyalty.User{{Email: "b@example.com"}, {Email: "c@example.com"}, {Phone: "+442070313000"}, {Phone: "+33142685300"}} {
			if err := insert(u); err != nil {
				t.Errorf("insert %+v: %v", u, err)
			}
		}

		// The failed insert undoes the whole transaction.
		err := db.WithTx(ctx, func(tx loyalty.Tx) error {
			now := tx.Now()
			first := loyalty.User{ID: loyalty.NewID(), Email: "first@example.com", CreatedAt: now, UpdatedAt: now}
			if err := tx.InsertUser(ctx, &first); err != nil {
				return err
			}
			dup := loyalty.User{ID: loyalty.NewID(), Email: "ann@example.com", CreatedAt: now, UpdatedAt: now}
			return tx.InsertUser(ctx, &dup)
		})
		wantInvalid(t, err, "email")
		err = db.WithTx(ctx, func(tx loyalty.Tx) error {
			_, err := tx.UserByEmail(ctx, "first@example.com")
			return err
		})
		wantCode(t, err, loyalty.ENotFound)

		// An update onto another person's e-mail is mapped the same way.
		err = db.WithTx(ctx, func(tx loyalty.Tx) error {
			u, err := tx.UserByEmail(ctx, "b@example.com")
			if err != nil {
				return err
			}
			u.Email = "ann@example.com"
			return tx.UpdateUser(ctx, &u)
		})
		wantInvalid(t, err, "email")
	})
}

func TestDialect(t *testing.T) {
	for _, engine := range testenv.Engines() {
		db := testenv.Open(t, engine)
		if db.Dialect() != engine {
			t.Errorf("engine %s: Dialect() = %q", engine, db.Dialect())
		}
	}
}

// TestTextTheDatabaseRefuses: a NUL character, or bytes that are not UTF-8,
// reaching the store by a way that skipped the API's checks is a bad
// request on PostgreSQL (which refuses them in text), never an internal
// error; SQLite compares them like any text.
func TestTextTheDatabaseRefuses(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		for _, key := range []string{"key-\x00", "key-\xff"} {
			_, err := db.Tenant(ctx, key)
			want := loyalty.EUnauthorized // no such key
			if db.Dialect() == sqlstore.Postgres {
				want = loyalty.EBadRequest
			}
			wantCode(t, err, want)
		}
	})
}
