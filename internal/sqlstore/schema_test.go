package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// schemaAllowed lists the differences between the two migration trees that
// are meant, keyed by the subject a difference names, each with its reason.
// An entry that no longer matches a difference fails the test, so the list
// cannot outlive what it excuses.
var schemaAllowed = map[string]string{
	// PostgreSQL leaves the entries that reverse nothing (NULL) out of the
	// index, to write less per ledger entry (its 00008). The rule is the
	// same on both engines, as NULLs never collide in a unique index; on
	// SQLite the UNIQUE is part of CREATE TABLE and could only go by
	// rebuilding the ledger, which its single writer does not need.
	"transactions unique (reverses_id)": "partial on PostgreSQL only, same rule",

	// SQLite's single writer numbers each event as it writes it, and its
	// event log is one b-tree keyed by the number (its 00030): the reward
	// batch's commits rewrite one page of it instead of three.
	// PostgreSQL's transactions insert events unnumbered, for the
	// sequencer; the id is a UUIDv7 the store makes, on both.
	"events unique (business_id, seq)": sqliteEventsBySeq,
	"events.seq NOT NULL":              sqliteEventsBySeq,

	"application_keys.key NOT NULL":       sqliteNullablePK,
	"apps.id NOT NULL":                    sqliteNullablePK,
	"authorization_codes.id NOT NULL":     sqliteNullablePK,
	"branches.id NOT NULL":                sqliteNullablePK,
	"business_rules.business_id NOT NULL": sqliteNullablePK,
	"businesses.id NOT NULL":              sqliteNullablePK,
	"coalitions.id NOT NULL":              sqliteNullablePK,
	"developers.id NOT NULL":              sqliteNullablePK,
	"oauth_tokens.id NOT NULL":            sqliteNullablePK,
	"owners.id NOT NULL":                  sqliteNullablePK,
	"server_secrets.name NOT NULL":        sqliteNullablePK,
	"support_staff.id NOT NULL":           sqliteNullablePK,
	"users.id NOT NULL":                   sqliteNullablePK,
	"web_sessions.id_hash NOT NULL":       sqliteNullablePK,
}

// sqliteNullablePK is why the primary keys above differ: SQLite lets a
// primary key other than INTEGER hold NULL unless it says NOT NULL (a
// legacy quirk its documentation keeps), PostgreSQL never does. The store
// always writes these keys itself (ids, hashes, fixed names), and adding
// NOT NULL on SQLite means rebuilding each table. A new table writes
// "PRIMARY KEY NOT NULL" and is not listed here.
const sqliteNullablePK = "SQLite primary key without NOT NULL"

// sqliteEventsBySeq is why the event logs differ (see above).
const sqliteEventsBySeq = "SQLite's events keyed by (business_id, seq), numbered as written"

// TestSchemasAgree migrates a fresh SQLite and a fresh PostgreSQL database
// and checks that both trees of migrations built the same tables, columns
// (type family, NOT NULL, default), and unique indexes.
func TestSchemasAgree(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("compares the SQLite and PostgreSQL schemas, and LOYALTY_TEST_POSTGRES=off leaves only SQLite")
	}
	lite := inspectSQLite(t, migrated(t, sqlstore.SQLite))
	pg := inspectPostgres(t, migrated(t, sqlstore.Postgres))

	var diffs []string
	used := map[string]bool{}
	for _, d := range compareSchemas(lite, pg) {
		if _, ok := schemaAllowed[d.subject]; ok {
			used[d.subject] = true
			continue
		}
		diffs = append(diffs, d.String())
	}
	for subject := range schemaAllowed {
		if !used[subject] {
			diffs = append(diffs, subject+": allowed to differ, but the schemas agree now; remove it from schemaAllowed")
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("the sqlite and postgres migrations build different schemas (%d differences):\n  %s",
			len(diffs), strings.Join(diffs, "\n  "))
	}
}

// migrated returns the handle of a fresh, migrated database of engine.
func migrated(t *testing.T, engine string) *sql.DB {
	t.Helper()
	db, err := sqlstore.Open(ctx, testenv.DSN(t, engine))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("%s: %v", engine, err)
	}
	return db.SQL()
}

// schema is what the test compares: tables by name.
type schema map[string]*table

// table is a table's columns by name and its unique indexes (primary key
// included), each as its ordered column list mapped to the predicates of
// the indexes on it ("" for an index that is not partial).
type table struct {
	cols    map[string]column
	uniques map[string][]string
}

// column is a column as both engines can say it.
type column struct {
	family  string // int, text, bool, time, bytes, float, numeric, or "unknown T"
	notNull bool
	dflt    string // "" without default, "generated", or a normalised literal
}

// schemaDiff is one difference: what it is about, and each engine's say.
type schemaDiff struct{ subject, sqlite, postgres string }

func (d schemaDiff) String() string {
	return fmt.Sprintf("%s: sqlite says %s, postgres says %s", d.subject, d.sqlite, d.postgres)
}

// compareSchemas lists every difference between the SQLite and PostgreSQL schemas.
func compareSchemas(lite, pg schema) []schemaDiff {
	var diffs []schemaDiff
	for _, name := range unionKeys(lite, pg) {
		lt, pt := lite[name], pg[name]
		if lt == nil || pt == nil {
			diffs = append(diffs, schemaDiff{name, present(lt != nil), present(pt != nil)})
			continue
		}
		for _, c := range unionKeys(lt.cols, pt.cols) {
			lc, lok := lt.cols[c]
			pc, pok := pt.cols[c]
			subject := name + "." + c
			if !lok || !pok {
				diffs = append(diffs, schemaDiff{subject, present(lok), present(pok)})
				continue
			}
			if lc.family != pc.family {
				diffs = append(diffs, schemaDiff{subject + " type", lc.family, pc.family})
			}
			if lc.notNull != pc.notNull {
				diffs = append(diffs, schemaDiff{subject + " NOT NULL", fmt.Sprint(lc.notNull), fmt.Sprint(pc.notNull)})
			}
			if lc.dflt != pc.dflt {
				diffs = append(diffs, schemaDiff{subject + " default", orNone(lc.dflt), orNone(pc.dflt)})
			}
		}
		for _, cols := range unionKeys(lt.uniques, pt.uniques) {
			l, p := describeUnique(lt.uniques[cols]), describeUnique(pt.uniques[cols])
			if l != p {
				diffs = append(diffs, schemaDiff{name + " unique (" + cols + ")", l, p})
			}
		}
	}
	return diffs
}

func unionKeys[V any](a, b map[string]V) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func present(ok bool) string {
	if ok {
		return "present"
	}
	return "absent"
}

func orNone(s string) string {
	if s == "" {
		return "no default"
	}
	return s
}

// describeUnique renders the unique indexes on one column list.
func describeUnique(preds []string) string {
	if len(preds) == 0 {
		return "none"
	}
	var out []string
	for _, p := range preds {
		if p == "" {
			out = append(out, "full")
		} else {
			out = append(out, "partial WHERE "+p)
		}
	}
	sort.Strings(out)
	return strings.Join(out, " + ")
}

// addUnique records a unique index on cols, partial when pred is not "".
func (tb *table) addUnique(cols []string, pred string) {
	key := strings.Join(cols, ", ")
	tb.uniques[key] = append(tb.uniques[key], loosePredicate(pred))
}

// loosePredicate normalises a partial index's predicate: PostgreSQL
// parenthesises and SQLite keeps the text as written.
func loosePredicate(p string) string {
	p = strings.NewReplacer("(", " ", ")", " ").Replace(strings.ToLower(p))
	return strings.Join(strings.Fields(p), " ")
}

// family maps a declared (SQLite) or information_schema (PostgreSQL) type
// to the family both engines agree on; "" means the test does not know it.
func family(typ string) string {
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "integer", "bigint", "smallint", "int", "int8", "int4":
		return "int"
	case "text", "character varying", "varchar":
		return "text"
	case "boolean", "bool":
		return "bool"
	case "datetime", "timestamp", "timestamptz", "timestamp with time zone", "timestamp without time zone":
		return "time"
	case "blob", "bytea":
		return "bytes"
	case "real", "double precision", "double":
		return "float"
	case "numeric":
		return "numeric"
	}
	return ""
}

var pgCast = regexp.MustCompile(`::[a-z ]+$`)

// normDefault turns a default as an engine reports it into one the other
// would report alike: casts and quotes of numbers dropped, booleans spelled
// true/false (SQLite keeps FALSE, 0 or whatever was written).
func normDefault(fam, d string) string {
	if d == "" {
		return ""
	}
	d = strings.TrimSpace(d)
	for strings.HasPrefix(d, "(") && strings.HasSuffix(d, ")") {
		d = strings.TrimSpace(d[1 : len(d)-1])
	}
	d = pgCast.ReplaceAllString(d, "")
	switch fam {
	case "bool":
		switch strings.ToLower(strings.Trim(d, "'")) {
		case "true", "1", "t":
			return "true"
		case "false", "0", "f":
			return "false"
		}
	case "int", "float", "numeric":
		return strings.Trim(d, "'")
	}
	return d
}

// inspectSQLite reads the schema of a SQLite database.
func inspectSQLite(t *testing.T, db *sql.DB) schema {
	t.Helper()
	s := schema{}
	for _, name := range textColumn(t, db, `SELECT name FROM sqlite_schema WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name <> $1`, goose.DefaultTablename) {
		tb := &table{cols: map[string]column{}, uniques: map[string][]string{}}
		s[name] = tb
		rows, err := db.QueryContext(ctx, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info($1)`, name)
		if err != nil {
			t.Fatal(err)
		}
		pk := map[int]string{}
		types := map[string]string{}
		for rows.Next() {
			var col, typ string
			var notNull bool
			var dflt sql.NullString
			var pkPos int
			if err := rows.Scan(&col, &typ, &notNull, &dflt, &pkPos); err != nil {
				t.Fatal(err)
			}
			fam := family(typ)
			if fam == "" {
				t.Errorf("sqlite %s.%s: type %q has no family in schema_test.go's family(); add it", name, col, typ)
				fam = "unknown " + typ
			}
			types[col] = typ
			if pkPos > 0 {
				pk[pkPos] = col
			}
			tb.cols[col] = column{family: fam, notNull: notNull, dflt: normDefault(fam, dflt.String)}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		keys := make([]string, len(pk))
		for pos, col := range pk {
			keys[pos-1] = col
		}
		if len(keys) == 1 && strings.EqualFold(types[keys[0]], "INTEGER") {
			// An INTEGER PRIMARY KEY is the rowid: SQLite numbers the rows
			// itself and never stores NULL there.
			c := tb.cols[keys[0]]
			c.notNull, c.dflt = true, "generated"
			tb.cols[keys[0]] = c
		}
		if len(keys) > 0 {
			tb.addUnique(keys, "")
		}
		// The primary key came from table_info above: its index (origin pk)
		// is skipped, and an INTEGER PRIMARY KEY has none.
		idx, err := db.QueryContext(ctx, `SELECT l.name, l.partial, coalesce(m.sql, '')
			FROM pragma_index_list($1) l LEFT JOIN sqlite_schema m ON m.type = 'index' AND m.name = l.name
			WHERE l."unique" = 1 AND l.origin <> 'pk'`, name)
		if err != nil {
			t.Fatal(err)
		}
		type index struct {
			name, pred string
		}
		var indexes []index
		for idx.Next() {
			var ix index
			var partial bool
			var ddl string
			if err := idx.Scan(&ix.name, &partial, &ddl); err != nil {
				t.Fatal(err)
			}
			if partial {
				i := strings.LastIndex(strings.ToUpper(ddl), " WHERE ")
				if i < 0 {
					t.Fatalf("sqlite index %s is partial, but its SQL has no WHERE: %s", ix.name, ddl)
				}
				ix.pred = ddl[i+len(" WHERE "):]
			}
			indexes = append(indexes, ix)
		}
		if err := idx.Err(); err != nil {
			t.Fatal(err)
		}
		idx.Close()
		for _, ix := range indexes {
			cols := textColumn(t, db, `SELECT coalesce(name, '(expression)') FROM pragma_index_info($1) ORDER BY seqno`, ix.name)
			tb.addUnique(cols, ix.pred)
		}
	}
	return s
}

// inspectPostgres reads the schema of the test's PostgreSQL schema.
func inspectPostgres(t *testing.T, db *sql.DB) schema {
	t.Helper()
	s := schema{}
	for _, name := range textColumn(t, db, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> $1`, goose.DefaultTablename) {
		s[name] = &table{cols: map[string]column{}, uniques: map[string][]string{}}
	}
	rows, err := db.QueryContext(ctx, `SELECT table_name, column_name, data_type, is_nullable = 'NO',
			coalesce(column_default, ''), is_identity = 'YES'
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> $1`, goose.DefaultTablename)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var tab, col, typ, dflt string
		var notNull, identity bool
		if err := rows.Scan(&tab, &col, &typ, &notNull, &dflt, &identity); err != nil {
			t.Fatal(err)
		}
		fam := family(typ)
		if fam == "" {
			t.Errorf("postgres %s.%s: type %q has no family in schema_test.go's family(); add it", tab, col, typ)
			fam = "unknown " + typ
		}
		c := column{family: fam, notNull: notNull, dflt: normDefault(fam, dflt)}
		if identity || strings.HasPrefix(dflt, "nextval(") {
			c.dflt = "generated"
		}
		if s[tab] == nil {
			continue // a view
		}
		s[tab].cols[col] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	idx, err := db.QueryContext(ctx, `SELECT t.relname, coalesce(pg_get_expr(x.indpred, x.indrelid), ''),
			array_to_string(ARRAY(
				SELECT coalesce(a.attname, '(expression)')
				FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
				LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
				WHERE k.ord <= x.indnkeyatts ORDER BY k.ord), ',')
		FROM pg_index x
		JOIN pg_class t ON t.oid = x.indrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace
		WHERE n.nspname = current_schema() AND x.indisunique AND t.relname <> $1`, goose.DefaultTablename)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	for idx.Next() {
		var tab, pred, cols string
		if err := idx.Scan(&tab, &pred, &cols); err != nil {
			t.Fatal(err)
		}
		if s[tab] != nil {
			s[tab].addUnique(strings.Split(cols, ","), pred)
		}
	}
	if err := idx.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// queryer is what the tests read through: a database, one of its
// connections or a transaction.
type queryer interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// textColumn returns the single text column of a query's rows, run on db
// (a database or a transaction).
func textColumn(t testing.TB, db queryer, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
