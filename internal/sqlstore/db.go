// Package sqlstore keeps Loyalty's data in SQLite (embedded, pure Go) or
// PostgreSQL (through pgx), with the same plain SQL on both.
package sqlstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/loyalty/loyalty/internal/loyalty"
)

//go:embed migrations
var migrations embed.FS

// Dialects.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// DB is an open database with its dialect. It implements loyalty.Store.
// A DB may be a view of another (AuditedBy, ClockedBy): the same
// database, whose transactions also write a console action's audit entry,
// or run on a sandbox business's clock.
type DB struct {
	*dbState
	// audit, in a view made by AuditedBy, is the entry of the console
	// action whose change the view's transactions make.
	audit *loyalty.AuditRecord
	// offset, in a view made by ClockedBy, is how far ahead of the real
	// clock the view's Now and transactions are: a sandbox business's.
	offset time.Duration
}

// dbState is an open database, shared by a DB and its views.
type dbState struct {
	db   *sql.DB
	wdb  *sql.DB // where transactions run: db itself, or SQLite's single writer
	pool *pgxpool.Pool
	// direct (PostgreSQL) is the connection settings of Options.ListenDSN
	// when given: PostgreSQL itself, past a pooler in transaction mode,
	// for what needs a session (the migrations: their lock timeout and
	// advisory lock); nil without one.
	direct *pgx.ConnConfig
	// listener hears other instances' changes to what token lookups read
	// (PostgreSQL).
	listener *accessListener
	// watch hears other processes' changes to what token lookups read
	// (SQLite).
	watch   *accessWatch
	dialect string
	stmts   stmts // prepared on db
	wstmts  stmts // prepared on wdb, for SQLite's hot writes
	// txPrepared are the statements of wstmts every transaction may use
	// (txStatements), once they could be prepared.
	txPrepared atomic.Pointer[map[string]*sql.Stmt]
	batch      *appendBatch  // AppendAlone's group writer
	ckpt       *checkpointer // SQLite: checkpoints beside the writer (checkpoint.go)
	tokens     accessCache
	skus       skuCache                      // what ProductsBySKU read, ended with tokens
	visits     visitCache                    // see dashboard_sum.go
	webhookKey atomic.Pointer[webhookCipher] // see webhook_secret.go
	// TokenCacheTTL is how long a token lookup may be reused (see
	// accessCache); zero reads every time.
	TokenCacheTTL time.Duration
	// Clock gives the time of each change; tests may replace it.
	Clock func() time.Time

	closed   sync.Once // Close runs once
	closeErr error
}

// Open opens the database named by dsn (see ParseDSN): a postgres:// or
// postgresql:// URL, or a SQLite file (with driver options after "?" such as
// _pragma=busy_timeout(500)), created when missing. It does not
// migrate; call Migrate.
func Open(ctx context.Context, dsn string) (*DB, error) {
	return OpenWith(ctx, dsn, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, dsn string, o Options) (*DB, error) {
	parsed, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	d := &DB{dbState: &dbState{Clock: time.Now}}
	var session *pgx.ConnConfig // PostgreSQL: the connections that need a session (ListenDSN)
	if o.ListenDSN != "" && parsed.Dialect != Postgres {
		return nil, errors.New("a listen DSN is for PostgreSQL only")
	}
	if parsed.Dialect == Postgres {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			return nil, fmt.Errorf("parse postgres url: %w", err)
		}
		if cfg.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeSimpleProtocol {
			// Its client-side quoting changes how the store's text and
			// errors behave (text PostgreSQL refuses is no longer told
			// apart); exec mode needs no server-side statement either.
			return nil, errors.New("default_query_exec_mode=simple_protocol is not supported; behind a transaction pooler use default_query_exec_mode=exec")
		}
		listen, err := listenConfig(cfg.ConnConfig, o.ListenDSN)
		if err != nil {
			return nil, err
		}
		cfg.ConnConfig.OnPgError = keepAfter
		if cfg.MaxConns < 16 {
			cfg.MaxConns = 16
		}
		var opts []stdlib.OptionOpenDB
		if plansKept(cfg.ConnConfig) {
			age := cmp.Or(o.PlanAge, planAge)
			cfg.PrepareConn = func(ctx context.Context, c *pgx.Conn) (bool, error) {
				return stalePlans(ctx, c, age) == nil, nil
			}
			opts = append(opts, stdlib.OptionResetSession(func(ctx context.Context, c *pgx.Conn) error {
				return stalePlans(ctx, c, age)
			}))
		}
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		d.pool, d.db, d.dialect = pool, stdlib.OpenDBFromPool(pool, opts...), Postgres
		d.listenAccess(listen)
		session = listen
		if o.ListenDSN != "" {
			d.direct = listen.Copy()
		}
		// database/sql keeps only 2 idle connections by default; churning
		// the rest loses pgx's per-connection statement cache.
		d.db.SetMaxOpenConns(int(cfg.MaxConns))
		d.db.SetMaxIdleConns(int(cfg.MaxConns))
	} else {
		path, opts := parsed.Path, parsed.Options
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("create database directory: %w", err)
			}
		}
		q, err := sqliteOptions(opts, sqlitePragmas)
		if err != nil {
			return nil, err
		}
		// The writer leaves checkpoints to the checkpointer (checkpoint.go).
		wq, err := sqliteOptions(opts, append(slices.Clone(sqlitePragmas), fmt.Sprintf("wal_autocheckpoint(%d)", writerAutocheckpoint)))
		if err != nil {
			return nil, err
		}
		db, err := sql.Open("sqlite", "file:"+path+"?"+q)
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		db.SetMaxOpenConns(8)
		db.SetMaxIdleConns(8)
		// SQLite has one writer at a time. Queueing writers on one
		// connection here is much faster than letting them collide in
		// SQLite's busy handler, which sleeps and retries.
		w, err := sql.Open("sqlite", "file:"+path+"?"+wq)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		w.SetMaxOpenConns(1)
		w.SetMaxIdleConns(1)
		w.SetConnMaxIdleTime(0)
		if err := dropLeftSamples(ctx, w); err != nil {
			db.Close()
			w.Close()
			return nil, fmt.Errorf("open sqlite: clear its sample statistics: %w", err)
		}
		d.db, d.wdb, d.dialect = db, w, SQLite
	}
	if d.wdb == nil {
		d.wdb = d.db
	}
	d.batch = newAppendBatch(d, session)
	if err := d.db.PingContext(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	if d.dialect == SQLite {
		// After the first connection made the file a WAL database, which
		// a second connection doing so at once would find locked.
		d.watchAccess()
		d.startCheckpoints()
	}
	return d, nil
}

// sqlitePragmas are the pragmas of every SQLite connection.
var sqlitePragmas = []string{"busy_timeout(10000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)"}

// sqliteOptions is the query of a SQLite DSN: the default pragmas, and
// the options of the given DSN after its "?" (such as
// _pragma=busy_timeout(500)), whose pragmas replace the defaults' of the
// same name.
func sqliteOptions(opts string, pragmas []string) (string, error) {
	extra, err := url.ParseQuery(opts)
	if err != nil {
		return "", fmt.Errorf("sqlite options: %w", err)
	}
	q := url.Values{"_txlock": {"immediate"}, "_time_format": {"sqlite"}}
	for _, p := range pragmas {
		name, _, _ := strings.Cut(p, "(")
		if !slices.ContainsFunc(extra["_pragma"], func(e string) bool { return strings.HasPrefix(e, name+"(") }) {
			q.Add("_pragma", p)
		}
	}
	for k, vs := range extra {
		q[k] = append(q[k], vs...)
	}
	return q.Encode(), nil
}

// Dialect returns SQLite or Postgres.
func (d *DB) Dialect() string { return d.dialect }

// SQL returns the underlying database handle.
func (d *DB) SQL() *sql.DB { return d.db }

// Close closes the database; calls after the first return its result.
func (d *DB) Close() error {
	d.closed.Do(func() {
		d.batch.close()
		d.stopCheckpoints()
		if d.listener != nil {
			d.listener.close()
		}
		if d.watch != nil {
			d.watch.stop()
		}
		d.closeStmts()
		d.closeErr = d.db.Close()
		if d.wdb != d.db {
			d.closeErr = errors.Join(d.closeErr, d.wdb.Close())
		}
		if d.pool != nil {
			d.pool.Close()
		}
	})
	return d.closeErr
}

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error { return d.db.PingContext(ctx) }

// MigrationsDigest is a hex SHA-256 over the names and contents of the
// migrations the binary carries for dialect: two builds with the same
// digest make the same schema.
func MigrationsDigest(dialect string) (string, error) {
	sub, err := fs.Sub(migrations, "migrations/"+dialect)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	err = fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sub, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("migrations digest: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// now returns the time of a change: UTC, whole seconds, as the API shows it.
func (d *DB) now() time.Time { return d.Clock().UTC().Truncate(time.Second) }

// Now is the store's clock as a change would see it: UTC, whole seconds,
// moved ahead by a view's offset (ClockedBy).
func (d *DB) Now() time.Time { return d.now().Add(d.offset) }

// Secret returns the server secret called name, creating it on first use.
// Every instance sharing the database sees the same value.
func (d *DB) Secret(ctx context.Context, name string) ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if _, err := d.wdb.ExecContext(ctx, `INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, b); err != nil {
		return nil, fmt.Errorf("store secret: %w", err)
	}
	var v []byte
	if err := d.db.QueryRowContext(ctx, `SELECT value FROM server_secrets WHERE name = $1`, name).Scan(&v); err != nil {
		return nil, fmt.Errorf("read secret: %w", err)
	}
	return v, nil
}

// nullTime converts a possibly-zero time to a NULL-able value.
func nullTime(t time.Time) sql.NullTime {
	return sql.NullTime{Time: t.UTC(), Valid: !t.IsZero()}
}

// nullString stores "" as NULL, for unique columns where absence repeats.
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func nullInt(n int64) sql.NullInt64 { return sql.NullInt64{Int64: n, Valid: n != 0} }
