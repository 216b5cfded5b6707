package testenv

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/loyalty/loyalty/internal/sqlstore"
)

// Migrated PostgreSQL schemas are lent, not made per test.
//
// Migrating a schema is some 220 DDL statements, each a write to the
// system catalogs that every connected session must then process: on a
// two-core machine running the end-to-end packages side by side, the
// server spent 377 s of its 407 s of statement time in them (116 schemas
// for e2e alone, a CREATE TABLE taking 30–90 ms), and e2e ran past go
// test's 10 minutes. So a migrated schema, once made, is kept in the
// database and lent to one test at a time: schema lp_<digest>_<n>, where
// the digest is that of the migrations (another build's schemas are never
// lent), held through a session-level advisory lock for as long as the
// test runs, across test processes (go test runs packages side by side).
// Lending empties it first, with DML only: every table's rows deleted,
// the rows the migrations themselves wrote put back, every sequence set
// where the migrations left it, so that the service finds it exactly as
// migrated. Those rows and sequences are kept as the schema's comment,
// written last, which also marks the schema complete.
//
// The migrations themselves are tested on empty schemas (DSN).

// poolLockClass is the first key of the pool's advisory locks.
const poolLockClass = 0x4c59 // "LY"

// poolSeed is what the migrations left in a schema, kept as its comment.
type poolSeed struct {
	Tables    []string              `json:"tables"`
	Rows      map[string]poolRows   `json:"rows"`
	Sequences []poolSequenceSetting `json:"sequences"`
}

type poolRows struct {
	Columns []string        `json:"columns"`
	JSON    json.RawMessage `json:"json"`
}

type poolSequenceSetting struct {
	Name   string `json:"name"`
	Value  int64  `json:"value"`
	Called bool   `json:"called"`
}

var (
	poolAdmin     *sql.DB
	poolAdminErr  error
	poolAdminOnce sync.Once
	poolSweep     sync.Once
)

// postgresBase is the server the tests use, as LOYALTY_TEST_POSTGRES
// names it.
func postgresBase() string {
	if base := os.Getenv("LOYALTY_TEST_POSTGRES"); base != "" {
		return base
	}
	return DefaultPostgres
}

// lendSchema returns the DSN of a migrated, empty schema that no other
// test holds until tb ends, with search_path set to it.
func lendSchema(tb testing.TB) string {
	tb.Helper()
	checkCatalogOf(tb)
	base := postgresBase()
	openPoolAdmin(tb, base)
	digest, err := sqlstore.MigrationsDigest(sqlstore.Postgres)
	if err != nil {
		tb.Fatalf("testenv: %v", err)
	}
	prefix := "lp_" + digest[:12] + "_"
	poolSweep.Do(func() { sweepPool(context.Background(), prefix) })
	return lendFrom(tb, base, prefix)
}

// lendFrom lends the first schema named prefix<n> that no test holds.
func lendFrom(tb testing.TB, base, prefix string) string {
	tb.Helper()
	openPoolAdmin(tb, base)
	ctx := context.Background()
	conn, err := poolAdmin.Conn(ctx)
	if err != nil {
		tb.Fatalf("testenv: postgres at %s is needed (set LOYALTY_TEST_POSTGRES=off to skip it): %v", base, err)
	}
	for n := 0; ; n++ {
		schema := fmt.Sprintf("%s%d", prefix, n)
		var got bool
		if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, poolLockClass, schema).Scan(&got); err != nil {
			conn.Close()
			tb.Fatalf("testenv: lock schema %s: %v", schema, err)
		}
		if !got {
			continue
		}
		tb.Cleanup(func() {
			conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1, hashtext($2))`, poolLockClass, schema)
			conn.Close()
		})
		dsn := schemaDSN(tb, base, schema)
		if err := readySchema(ctx, conn, schema, dsn); err != nil {
			tb.Fatalf("testenv: schema %s: %v", schema, err)
		}
		return dsn
	}
}

// openPoolAdmin opens the connections the pool locks and empties schemas
// on, once per process.
func openPoolAdmin(tb testing.TB, base string) {
	tb.Helper()
	poolAdminOnce.Do(func() { poolAdmin, poolAdminErr = sql.Open("pgx", base) })
	if poolAdminErr != nil {
		tb.Fatalf("testenv: open postgres: %v", poolAdminErr)
	}
}

// readySchema empties schema if it is complete, and otherwise makes it
// anew: creates it, migrates it and writes its seed.
func readySchema(ctx context.Context, conn *sql.Conn, schema, dsn string) error {
	var comment sql.NullString
	err := conn.QueryRowContext(ctx, `SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1`, schema).Scan(&comment)
	if err != nil && err != sql.ErrNoRows {
		return err
	}
	if comment.Valid {
		var seed poolSeed
		if json.Unmarshal([]byte(comment.String), &seed) == nil && len(seed.Tables) > 0 {
			if err := emptySchema(ctx, conn, schema, seed); err == nil {
				return nil
			}
			// A schema that cannot be emptied (a table a test dropped,
			// say) is made anew.
		}
	}
	if _, err := conn.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+ident(schema)+` CASCADE`); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `CREATE SCHEMA `+ident(schema)); err != nil {
		return err
	}
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	_, err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		return err
	}
	seed, err := readSeed(ctx, conn, schema)
	if err != nil {
		return err
	}
	b, err := json.Marshal(seed)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `COMMENT ON SCHEMA `+ident(schema)+` IS `+literal(string(b)))
	return err
}

// readSeed reads what the migrations left in schema: its tables, the
// rows of those they wrote to, and its sequences' settings.
func readSeed(ctx context.Context, conn *sql.Conn, schema string) (poolSeed, error) {
	seed := poolSeed{Rows: map[string]poolRows{}}
	tables, err := strings1(ctx, conn, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`, schema)
	if err != nil {
		return seed, err
	}
	seed.Tables = tables
	for _, t := range seed.Tables {
		var data []byte
		q := `SELECT json_agg(t) FROM ` + ident(schema) + `.` + ident(t) + ` t`
		if err := conn.QueryRowContext(ctx, q).Scan(&data); err != nil {
			return seed, err
		}
		if data == nil {
			continue
		}
		cols, err := strings1(ctx, conn, `SELECT a.attname FROM pg_attribute a
			WHERE a.attrelid = ($1 || '.' || $2)::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
			ORDER BY a.attnum`, ident(schema), ident(t))
		if err != nil {
			return seed, err
		}
		seed.Rows[t] = poolRows{Columns: cols, JSON: data}
	}
	srows, err := conn.QueryContext(ctx, `SELECT sequencename, COALESCE(last_value, start_value), last_value IS NOT NULL
		FROM pg_sequences WHERE schemaname = $1 ORDER BY sequencename`, schema)
	if err != nil {
		return seed, err
	}
	defer srows.Close()
	for srows.Next() {
		var s poolSequenceSetting
		if err := srows.Scan(&s.Name, &s.Value, &s.Called); err != nil {
			return seed, err
		}
		seed.Sequences = append(seed.Sequences, s)
	}
	return seed, srows.Err()
}

// strings1 returns the one text column of query's rows.
func strings1(ctx context.Context, conn *sql.Conn, query string, args ...any) ([]string, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// emptySchema puts schema back as seed says the migrations left it, in
// one transaction of DML: with session_replication_role = replica no
// trigger runs (foreign keys included), so the order of the deletes does
// not matter and no trigger writes anything.
func emptySchema(ctx context.Context, conn *sql.Conn, schema string, seed poolSeed) error {
	var b strings.Builder
	b.WriteString("BEGIN;\nSET LOCAL session_replication_role = replica;\n")
	for _, t := range seed.Tables {
		fmt.Fprintf(&b, "DELETE FROM %s.%s;\n", ident(schema), ident(t))
	}
	for _, t := range seed.Tables {
		r, ok := seed.Rows[t]
		if !ok {
			continue
		}
		cols := make([]string, len(r.Columns))
		for i, c := range r.Columns {
			cols[i] = ident(c)
		}
		list := strings.Join(cols, ", ")
		table := ident(schema) + "." + ident(t)
		fmt.Fprintf(&b, "INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM json_populate_recordset(NULL::%s, %s);\n",
			table, list, list, table, literal(string(r.JSON)))
	}
	for _, s := range seed.Sequences {
		fmt.Fprintf(&b, "SELECT setval(%s, %d, %t);\n", literal(ident(schema)+"."+ident(s.Name)), s.Value, s.Called)
	}
	b.WriteString("COMMIT;")
	// One simple-protocol round trip (pgx sends a query without
	// arguments that way), whatever the number of tables.
	if _, err := conn.ExecContext(ctx, b.String()); err != nil {
		conn.ExecContext(ctx, `ROLLBACK`)
		return err
	}
	return nil
}

// sweepPool drops the pooled schemas of other builds' migrations that no
// test holds, so that they do not pile up in the catalogs.
func sweepPool(ctx context.Context, prefix string) {
	conn, err := poolAdmin.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	stale, err := strings1(ctx, conn, `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lp\_%' AND left(nspname, length($1)) <> $1`, prefix)
	if err != nil {
		return
	}
	for _, s := range stale {
		var got bool
		if conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, poolLockClass, s).Scan(&got) != nil || !got {
			continue
		}
		conn.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+ident(s)+` CASCADE`)
		conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, poolLockClass, s)
	}
}

// schemaDSN is base with search_path set to schema and commits that do
// not wait for the disk (see MigratedDSN).
func schemaDSN(tb testing.TB, base, schema string) string {
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("testenv: bad LOYALTY_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("synchronous_commit", "off") // pgx sends it as a session setting
	u.RawQuery = q.Encode()
	return u.String()
}

func ident(s string) string   { return pgx.Identifier{s}.Sanitize() }
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
