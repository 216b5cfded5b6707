package pgcatalog_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/loyalty/loyalty/internal/pgcatalog"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestMeasure bloats the catalog of a throwaway database on purpose
// (tables of 1,000 columns created and dropped, nothing vacuumed), checks
// that Measure reports it, then vacuums it as .ci/run and
// docs/measuring.md do and checks that it no longer does.
func TestMeasure(t *testing.T) {
	base := os.Getenv("LOYALTY_TEST_POSTGRES")
	if base == "off" {
		t.Skip("LOYALTY_TEST_POSTGRES=off")
	}
	if base == "" {
		base = testenv.DefaultPostgres
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	b := make([]byte, 6)
	rand.Read(b)
	name := "wte_catalog_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatalf("postgres at %s is needed (set LOYALTY_TEST_POSTGRES=off to skip it): %v", base, err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if _, err := admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})

	fresh, err := pgcatalog.Measure(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fresh:    %s", fresh)
	if fresh.Bloated() || fresh.Database != name || len(fresh.Tables) != len(pgcatalog.Tables) {
		t.Fatalf("a fresh database: %+v", fresh)
	}

	// Each table leaves some 1,000 dead rows (about 200 KB) in
	// pg_attribute; 120 of them take a fresh catalog (6,200 rows, 152
	// bytes each) to about 26 times its size, past Limit (20 times).
	start := time.Now()
	if _, err := db.ExecContext(ctx, `DO $$
		DECLARE cols text;
		BEGIN
			SELECT string_agg('c' || g || ' int', ', ') INTO cols FROM generate_series(1, 1000) g;
			FOR i IN 1..120 LOOP
				EXECUTE format('CREATE TABLE junk%s (%s)', i, cols);
				EXECUTE format('DROP TABLE junk%s', i);
			END LOOP;
		END $$`); err != nil {
		t.Fatal(err)
	}
	t.Logf("120 tables of 1,000 columns created and dropped in %s", time.Since(start).Round(time.Millisecond))
	bloated, err := pgcatalog.Measure(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bloated:  %s", bloated)
	if !bloated.Bloated() || bloated.Warning() == "" {
		t.Fatalf("not reported as bloated: %s", bloated)
	}
	if bloated.Rows() > fresh.Rows()+100 {
		t.Errorf("live rows %d, %d fresh: the dropped tables' rows were counted", bloated.Rows(), fresh.Rows())
	}

	start = time.Now()
	if _, err := db.ExecContext(ctx, pgcatalog.Vacuum); err != nil {
		t.Fatal(err)
	}
	t.Logf("vacuumed in %s", time.Since(start).Round(time.Millisecond))
	vacuumed, err := pgcatalog.Measure(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vacuumed: %s", vacuumed)
	if vacuumed.Bloated() || vacuumed.Warning() != "" {
		t.Fatalf("still reported as bloated after VACUUM: %s", vacuumed)
	}
}
