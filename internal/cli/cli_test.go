package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/cli"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// result is one run of the command line.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

// run runs the loyalty command line as cmd/loyalty does.
func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), append([]string{"loyalty"}, args...), &out, &errb)
	return result{args: args, code: code, stdout: out.String(), stderr: errb.String()}
}

// ok fails the test unless the run succeeded, printing nothing on stderr.
func (r result) ok(t *testing.T) result {
	t.Helper()
	if r.code != cli.ExitOK || r.stderr != "" {
		t.Fatalf("loyalty %s: exit %d, stderr %q; want exit 0 and nothing on stderr", strings.Join(r.args, " "), r.code, r.stderr)
	}
	return r
}

// fails fails the test unless the run exited with code, nothing on
// stdout, and an error on stderr mentioning each of want.
func (r result) fails(t *testing.T, code int, want ...string) {
	t.Helper()
	if r.code != code || r.stdout != "" || !strings.HasPrefix(r.stderr, "loyalty: ") {
		t.Errorf("loyalty %s: exit %d, stdout %q, stderr %q; want exit %d, an error and nothing on stdout",
			strings.Join(r.args, " "), r.code, r.stdout, r.stderr, code)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("loyalty %s: stderr %q does not mention %q", strings.Join(r.args, " "), r.stderr, w)
		}
	}
}

// obj decodes stdout, which must be exactly one JSON object on one line.
func (r result) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if strings.Count(r.stdout, "\n") != 1 || json.Unmarshal([]byte(r.stdout), &m) != nil {
		t.Fatalf("loyalty %s: stdout is not one JSON object on one line: %q", strings.Join(r.args, " "), r.stdout)
	}
	return m
}

func TestUsageErrors(t *testing.T) {
	t.Chdir(t.TempDir()) // a mistyped --db must not create anything here
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"loyalty needs a command", "serve", "admin"}},
		{[]string{"foo"}, []string{`unknown command "foo"`}},
		{[]string{"serve", "extra-arg"}, []string{"loyalty serve takes no arguments", "extra-arg"}},
		{[]string{"migrate", "now"}, []string{"loyalty migrate takes no arguments"}},
		{[]string{"admin"}, []string{"loyalty admin needs a command", "business", "support"}},
		{[]string{"admin", "business", "nope"}, []string{`unknown command "nope" for loyalty admin business`}},
		{[]string{"admin", "business", "owner"}, []string{"reset-password"}},
		{[]string{"admin", "app", "show"}, []string{"takes one argument", "CLIENT_ID"}},
		{[]string{"admin", "app", "show", "a", "b"}, []string{"takes one argument", "CLIENT_ID"}},
		{[]string{"admin", "business", "list", "all"}, []string{"takes no arguments"}},
		{[]string{"admin", "business", "create", "--name", "X"}, []string{"missing --loyalty-type, --owner-email, --owner-password"}},
		{[]string{"admin", "support", "create"}, []string{"missing --email, --password"}},
		{[]string{"admin", "coalition", "create", "--nam", "X"}, []string{"-nam", "loyalty admin coalition create --help"}},
		{[]string{"serve", "--json"}, []string{"-json"}}, // --json is offered only where there is a result
		{[]string{"serve", "--reset-url", "ftp://x"}, []string{"--reset-url"}},
		{[]string{"serve", "--public-url", "loyalty.example.com"}, []string{"--public-url"}},
		{[]string{"serve", "--redis-instances", "0"}, []string{"--redis-instances"}},
		{[]string{"serve", "--events-nats", "http://127.0.0.1:4222"}, []string{"--events-nats"}},
		{[]string{"serve", "--events-nats-stream", "EVENTS"}, []string{"--events-nats-stream", "STREAM:PREFIX"}},
		{[]string{"serve", "--events-nats-stream", "EVENTS:loyalty.>"}, []string{"--events-nats-stream"}},
		{[]string{"serve", "--db-listen", "postgres://root:hunter2@127.0.0.1/x"}, []string{"--db-listen", "PostgreSQL --db"}},
		{[]string{"--db", "postgres://127.0.0.1/x", "serve", "--db-listen", "listen.db"}, []string{"--db-listen", "postgres://"}},
		{[]string{"--db", "postgres//bad", "migrate"}, []string{"--db", "postgres://", ".sqlite3", "sqlite:PATH"}},
		{[]string{"--db", "mysql://root:hunter2@x/y", "admin", "business", "list"}, []string{"--db", "unsupported", "postgres://"}},
		{[]string{"--db", "data/loyalty", "serve"}, []string{"--db", ".db"}},
		{[]string{"help", "nope"}, []string{"nope"}},
	} {
		r := run(t, c.args...)
		r.fails(t, cli.ExitUsage, c.want...)
		if strings.Contains(r.stderr, "hunter2") {
			t.Errorf("loyalty %s: the error shows the password: %q", strings.Join(c.args, " "), r.stderr)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("usage errors left files behind: %v", entries)
	}
}

func TestVersion(t *testing.T) {
	line := run(t, "version").ok(t).stdout
	if !strings.HasPrefix(line, "loyalty ") || !strings.Contains(line, runtime.Version()) || strings.Count(line, "\n") != 1 {
		t.Errorf("loyalty version = %q, want one line with the version and %s", line, runtime.Version())
	}
	if flag := run(t, "--version").ok(t).stdout; flag != line {
		t.Errorf("loyalty --version = %q, want what loyalty version prints: %q", flag, line)
	}
	v := run(t, "version", "--json").ok(t).obj(t)
	if v["go"] != runtime.Version() || v["version"] == "" || v["platform"] != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("loyalty version --json = %v", v)
	}
	for _, k := range []string{"commit", "commit_time", "modified"} {
		if _, ok := v[k]; !ok {
			t.Errorf("loyalty version --json lacks %q: %v", k, v)
		}
	}
}

func TestHelp(t *testing.T) {
	help := run(t, "admin", "business", "create", "--help").ok(t).stdout
	for _, line := range strings.Split(help, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "--") {
			continue
		}
		isRequired := strings.Contains(line, "(required)")
		switch f[0] {
		case "--name", "--loyalty-type", "--owner-email", "--owner-password":
			if !isRequired {
				t.Errorf("help does not mark %s required: %q", f[0], line)
			}
		default:
			if isRequired {
				t.Errorf("help marks %s required: %q", f[0], line)
			}
		}
	}
	root := run(t, "--help").ok(t).stdout
	if !strings.Contains(root, "Exit codes: 0 done, 1 failed, 2 usage error.") {
		t.Errorf("loyalty --help does not document the exit codes:\n%s", root)
	}
	if serve := run(t, "serve", "--help").ok(t).stdout; strings.Contains(serve, "--json") {
		t.Errorf("loyalty serve --help offers --json:\n%s", serve)
	}
}

// TestJSONBeforeTheCommand: --json, like --db, may come before the
// command as well as after it, and means the same there.
func TestJSONBeforeTheCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "loyalty.db")
	if got := run(t, "--json", "--db", db, "migrate").ok(t).obj(t); got["status"] != "migrated" {
		t.Errorf("loyalty --json migrate = %v", got)
	}
	created := run(t, "--json", "--db", db, "admin", "business", "create", "--name", "Corner Cafe", "--loyalty-type", "per_spend",
		"--owner-email", "owner@cafe.example", "--owner-password", "first-password").ok(t).obj(t)
	if created["business_id"] == nil || created["application_key"] == nil || created["database"] != "sqlite:"+db {
		t.Errorf("loyalty --json admin business create = %v", created)
	}
	for _, args := range [][]string{
		{"--json", "--db", db, "admin", "business", "list"},
		{"--db", db, "--json", "admin", "business", "list"},
		{"--db", db, "admin", "--json", "business", "list"},
		{"--db", db, "admin", "business", "list", "--json"},
	} {
		list, ok := run(t, args...).ok(t).obj(t)["businesses"].([]any)
		if !ok || len(list) != 1 || list[0].(map[string]any)["business_id"] != created["business_id"] {
			t.Errorf("loyalty %s: businesses %v", strings.Join(args, " "), list)
		}
	}
	if v := run(t, "--json", "version").ok(t).obj(t); v["go"] != runtime.Version() {
		t.Errorf("loyalty --json version = %v", v)
	}
	if v := run(t, "--json", "--version").ok(t).obj(t); v["go"] != runtime.Version() {
		t.Errorf("loyalty --json --version = %v", v)
	}
	// A command with no result refuses it in either place.
	run(t, "--json", "serve").fails(t, cli.ExitUsage, "loyalty serve", "--json")
}

// TestSQLiteDSNForms opens the same SQLite file through each accepted
// spelling of --db.
func TestSQLiteDSNForms(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.sqlite3")
	run(t, "--db", path, "migrate").ok(t)
	for _, db := range []string{path, "sqlite:" + path, "file:" + path} {
		got := run(t, "--db", db, "admin", "business", "list", "--json").ok(t).obj(t)
		if got["database"] != "sqlite:"+path {
			t.Errorf("--db %s: database %v, want sqlite:%s", db, got["database"], path)
		}
	}
	bare := filepath.Join(dir, "store")
	run(t, "--db", "sqlite:"+bare, "migrate").ok(t)
	if _, err := os.Stat(bare); err != nil {
		t.Errorf("--db sqlite:%s did not create the file: %v", bare, err)
	}
}

// TestMigrateAnalyze: migrate --analyze gives the planner the tables'
// statistics, on SQLite without sample statistics (sqlstore's stats.go),
// and says so. The database is read directly: opening the store would
// itself clear samples on SQLite.
func TestMigrateAnalyze(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		run(t, "--db", dsn, "migrate").ok(t)
		admin(t, dsn, "business", "create", "--name", "Corner Cafe", "--loyalty-type", "per_spend",
			"--owner-email", "owner@cafe.example", "--owner-password", "first-password")
		got := run(t, "--json", "--db", dsn, "migrate", "--analyze").ok(t).obj(t)
		if got["status"] != "migrated" || got["statistics"] != "gathered" {
			t.Errorf("loyalty --json migrate --analyze = %v", got)
		}
		if human := run(t, "--db", dsn, "migrate", "--analyze").ok(t).stdout; !strings.Contains(human, "planner statistics gathered") {
			t.Errorf("loyalty migrate --analyze says %q", human)
		}
		parsed, err := sqlstore.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		driver, source, count := "pgx", dsn, `SELECT reltuples::bigint FROM pg_class WHERE oid = 'businesses'::regclass`
		if parsed.Dialect == sqlstore.SQLite {
			driver, source, count = "sqlite", parsed.Path, `SELECT CAST(stat AS INTEGER) FROM sqlite_stat1 WHERE tbl = 'businesses' LIMIT 1`
		}
		db, err := sql.Open(driver, source)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int64
		if err := db.QueryRow(count).Scan(&n); err != nil || n != 1 {
			t.Errorf("after migrate --analyze the planner counts %d businesses (%v), want 1", n, err)
		}
		if parsed.Dialect == sqlstore.SQLite {
			if err := db.QueryRow(`SELECT count(*) FROM sqlite_stat4`).Scan(&n); err != nil || n != 0 {
				t.Errorf("after migrate --analyze SQLite keeps %d sample statistics (%v), want none", n, err)
			}
		}
	})
}
