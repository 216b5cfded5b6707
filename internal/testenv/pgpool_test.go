package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestLentSchemaIsAsMigrated lends a schema, writes to it as a test would
// (rows in many tables, sequences moved, the migrations' own rows
// changed), and lends it again: the second test must find it exactly as
// a fresh migration leaves an empty schema.
func TestLentSchemaIsAsMigrated(t *testing.T) {
	if os.Getenv("LOYALTY_TEST_POSTGRES") == "off" {
		t.Skip("LOYALTY_TEST_POSTGRES=off")
	}
	b := make([]byte, 4)
	rand.Read(b)
	prefix := "lp_test_" + hex.EncodeToString(b) + "_"
	base := postgresBase()
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		db.Exec(`DROP SCHEMA IF EXISTS ` + prefix + `0 CASCADE`)
	})
	ctx := context.Background()
	var first string
	t.Run("dirty", func(t *testing.T) {
		first = lendFrom(t, base, prefix)
		db := openPG(t, first)
		for _, q := range []string{
			`INSERT INTO businesses (id, name, loyalty_type, country_code, created_at, updated_at) VALUES ('b1', 'Café', 'per_spend', 'CA', now(), now())`,
			`INSERT INTO server_secrets (name, value) VALUES ('s', '\x01')`,
			`UPDATE access_generation SET n = n + 7`,
			`DELETE FROM goose_db_version WHERE version_id = (SELECT MAX(version_id) FROM goose_db_version)`,
			`SELECT nextval(pg_get_serial_sequence('transactions', 'id'))`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	})
	t.Run("again", func(t *testing.T) {
		again := lendFrom(t, base, prefix)
		if again != first {
			t.Fatalf("lent %s after %s was given back, want the same schema", again, first)
		}
		fresh := DSN(t, sqlstore.Postgres)
		fdb, err := sqlstore.Open(ctx, fresh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fdb.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		fdb.Close()
		want, got := schemaState(t, fresh), schemaState(t, again)
		if len(want) < 40 {
			t.Fatalf("a migrated schema has only %d tables and sequences: %v", len(want), want)
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: lent schema has %q, a fresh migration %q", k, got[k], w)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("lent schema has %s, which a fresh migration does not", k)
			}
		}
	})
}

func openPG(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// schemaState is, for each table of the DSN's schema, its rows (without
// the columns that record when), and for each sequence its setting.
func schemaState(t *testing.T, dsn string) map[string]string {
	t.Helper()
	db := openPG(t, dsn)
	ctx := context.Background()
	state := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		tables = append(tables, s)
	}
	rows.Close()
	for _, tb := range tables {
		var s sql.NullString
		q := `SELECT string_agg(row_to_json(x)::jsonb - 'tstamp' - 'created_at' - 'updated_at' #>> '{}', ' | ' ORDER BY row_to_json(x)::text) FROM ` + tb + ` x`
		if err := db.QueryRowContext(ctx, q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", tb, err)
		}
		state["table "+tb] = s.String
	}
	srows, err := db.QueryContext(ctx, `SELECT sequencename, COALESCE(last_value::text, 'not called') FROM pg_sequences WHERE schemaname = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	defer srows.Close()
	for srows.Next() {
		var n, v string
		srows.Scan(&n, &v)
		state["sequence "+strings.TrimSpace(n)] = v
	}
	return state
}
