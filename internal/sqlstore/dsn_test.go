package sqlstore_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

func TestParseDSN(t *testing.T) {
	abs, _ := filepath.Abs("data/loyalty.db")
	for _, c := range []struct{ in, dialect, shown string }{
		{"postgres://app:s3cret@db:5432/loyalty?sslmode=disable&password=x", sqlstore.Postgres, "postgres://app@db:5432/loyalty"},
		{"postgresql://db/loyalty", sqlstore.Postgres, "postgresql://db/loyalty"},
		{"data/loyalty.db", sqlstore.SQLite, "sqlite:" + abs},
		{"/var/lib/loyalty/store.sqlite", sqlstore.SQLite, "sqlite:/var/lib/loyalty/store.sqlite"},
		{"/var/lib/loyalty/store.SQLITE3", sqlstore.SQLite, "sqlite:/var/lib/loyalty/store.SQLITE3"},
		{"sqlite:/var/lib/loyalty/store", sqlstore.SQLite, "sqlite:/var/lib/loyalty/store"},
		{"file:data/loyalty.db", sqlstore.SQLite, "sqlite:" + abs},
	} {
		d, err := sqlstore.ParseDSN(c.in)
		if err != nil || d.Dialect != c.dialect || d.String() != c.shown {
			t.Errorf("ParseDSN(%q) = %s %q, %v; want %s %q", c.in, d.Dialect, d.String(), err, c.dialect, c.shown)
		}
	}
	for _, in := range []string{"postgres//bad", "mysql://x", "postgres://", "data/loyalty", "loyalty.txt", "sqlite:", "file:x.db?mode=ro", ""} {
		_, err := sqlstore.ParseDSN(in)
		if err == nil || !strings.Contains(err.Error(), "postgres://") || !strings.Contains(err.Error(), ".sqlite3") {
			t.Errorf("ParseDSN(%q) = %v; want an error naming the accepted forms", in, err)
		}
	}
	_, err := sqlstore.ParseDSN("mysql://root:hunter2@x/db")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("ParseDSN of a URL with a password: %v; want an error without the password", err)
	}
}

func TestInitialized(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		db, err := sqlstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if ok, err := db.Initialized(ctx); err != nil || ok {
			t.Fatalf("Initialized before migrating = %v, %v", ok, err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, err := db.Initialized(ctx); err != nil || !ok {
			t.Fatalf("Initialized after migrating = %v, %v", ok, err)
		}
	})
}
