package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DSNForms names the database settings Open accepts, for error messages.
const DSNForms = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or postgresql://...), " +
	"a SQLite file path ending in .db, .sqlite or .sqlite3, or sqlite:PATH or file:PATH for any other SQLite path"

// DSN is a parsed database setting.
type DSN struct {
	Dialect string // SQLite or Postgres
	Path    string // SQLite: the file
	Options string // SQLite: driver options after "?" (e.g. _pragma=busy_timeout(500))
	URL     string // PostgreSQL: the URL as given
}

// Options are the settings of OpenWith beyond the database itself.
type Options struct {
	// ListenDSN (PostgreSQL) is where the two connections that need a
	// session of their own go: the one that hears other instances'
	// changes (see accessListener) and the group writer's, whose
	// statement stays prepared (see batchConn); empty: the database
	// itself. When dsn goes through a pooler in transaction mode
	// (pgbouncer), ListenDSN must reach PostgreSQL directly; without it,
	// the group writer plans each batch afresh, at about twice
	// PostgreSQL's CPU per reward. It may name several hosts; both pick
	// the one that accepts writes, where the notifications are sent and
	// the batches written.
	ListenDSN string
	// PlanAge (PostgreSQL) is how old the pool's connections' cached
	// plans may grow before they are made again (see plans.go); zero:
	// planAge.
	PlanAge time.Duration
}

// ParseDSN reads a database setting: a postgres:// or postgresql:// URL, a
// path ending in .db, .sqlite or .sqlite3, or sqlite:PATH or file:PATH.
// Anything else is refused, so that a mistyped URL does not quietly
// become a new SQLite file.
func ParseDSN(s string) (DSN, error) {
	switch {
	case strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://"):
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return DSN{}, fmt.Errorf("%q is not a PostgreSQL URL; want %s", RedactURL(s), DSNForms)
		}
		return DSN{Dialect: Postgres, URL: s}, nil
	case strings.HasPrefix(s, "sqlite:") || strings.HasPrefix(s, "file:"):
		path, opts, _ := strings.Cut(s[strings.IndexByte(s, ':')+1:], "?")
		if path == "" || strings.Contains(path, "#") {
			return DSN{}, fmt.Errorf("%q names no SQLite file; want %s", s, DSNForms)
		}
		return sqliteDSN(s, path, opts)
	case strings.Contains(s, "://"):
		return DSN{}, fmt.Errorf("%q: unsupported database; want %s", RedactURL(s), DSNForms)
	}
	path, opts, _ := strings.Cut(s, "?")
	switch strings.ToLower(filepath.Ext(path)) {
	case ".db", ".sqlite", ".sqlite3":
		if strings.Contains(path, "#") {
			return DSN{}, fmt.Errorf("%q names no SQLite file; want %s", s, DSNForms)
		}
		return sqliteDSN(s, path, opts)
	}
	return DSN{}, fmt.Errorf("%q is neither a PostgreSQL URL nor a SQLite file; want %s", s, DSNForms)
}

// String shows the database without secrets: sqlite:ABSOLUTE-PATH, or the
// PostgreSQL URL without its password and options.
func (d DSN) String() string {
	if d.Dialect == SQLite {
		if abs, err := filepath.Abs(d.Path); err == nil {
			return "sqlite:" + abs
		}
		return "sqlite:" + d.Path
	}
	return RedactURL(d.URL)
}

// Exists reports whether the SQLite file is there; a PostgreSQL database
// is taken to exist (Open fails when it does not).
func (d DSN) Exists() (bool, error) {
	if d.Dialect != SQLite {
		return true, nil
	}
	_, err := os.Stat(d.Path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// redactURL drops the password and the query (which may carry one).
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unreadable URL)"
	}
	if u.User != nil && u.User.Username() == "" {
		u.User = nil
	} else if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// Initialized reports whether Loyalty's tables were ever created in the
// database (whether any migration ran).
func (d *DB) Initialized(ctx context.Context) (bool, error) {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version'`
	if d.dialect == Postgres {
		q = `SELECT COUNT(*) FROM (SELECT to_regclass('goose_db_version') AS t) x WHERE x.t IS NOT NULL`
	}
	var n int
	if err := d.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return false, dbError(err)
	}
	return n > 0, nil
}

// sqliteDSN is a SQLite setting whose options, if any, are only
// _pragma=NAME(VALUE) (such as a shorter busy_timeout); other driver
// options would change how the store uses the file, and are refused.
func sqliteDSN(s, path, opts string) (DSN, error) {
	q, err := url.ParseQuery(opts)
	for k := range q {
		if k != "_pragma" {
			err = fmt.Errorf("option %s", k)
		}
	}
	if err != nil {
		return DSN{}, fmt.Errorf("%q: only _pragma options may follow ?; want %s", s, DSNForms)
	}
	return DSN{Dialect: SQLite, Path: path, Options: opts}, nil
}
