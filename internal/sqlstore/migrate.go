package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// Migrations run while other instances serve (docs/operations.md,
// Upgrading), so on PostgreSQL they run apart from the store's pool:
//
//   - on connections of their own whose every statement waits at most
//     MigrationLockTimeout for a lock. A schema change queued behind a
//     long transaction would otherwise hold up every reward queued behind
//     it; it gives up instead, and the migration is tried again
//     (migrationAttempts), rolled back whole if it runs in a transaction,
//     from its first statement if it runs without one (those are written
//     to be run again: TestMigrationPolicy). A migration that must wait
//     longer, such as CREATE INDEX CONCURRENTLY waiting for older
//     transactions, says so itself (SET lock_timeout = 0, then RESET);
//   - under a session advisory lock of the schema, so that instances
//     started together apply each migration once.
const MigrationLockTimeout = 500 * time.Millisecond

// migrationAttempts is how many times a migration that gave up waiting
// for a lock is tried, a growing pause apart (at most 5 s).
const migrationAttempts = 30

// Migrate applies every pending migration and returns how many ran.
func (d *DB) Migrate(ctx context.Context) (int, error) {
	if d.dialect == Postgres {
		// Nothing to apply, nothing that needs a session: every command
		// opens the store, through a pooler too (migrationDB).
		sub, err := fs.Sub(migrations, "migrations/"+d.dialect)
		if err != nil {
			return 0, err
		}
		p, err := goose.NewProvider(goose.DialectPostgres, d.db, sub)
		if err != nil {
			return 0, fmt.Errorf("migrations: %w", err)
		}
		if pending, err := p.HasPending(ctx); err != nil {
			return 0, fmt.Errorf("migrate: %w", dbError(err))
		} else if !pending {
			return 0, nil
		}
	}
	n := 0
	err := d.migrate(ctx, func(ctx context.Context, p *goose.Provider) error {
		res, err := p.Up(ctx)
		var partial *goose.PartialError
		if errors.As(err, &partial) {
			res = partial.Applied // those before a try that gave up
		}
		n += len(res)
		return err
	})
	return n, err
}

// MigrateTo applies the migrations up to and including version.
func (d *DB) MigrateTo(ctx context.Context, version int64) error {
	return d.migrate(ctx, func(ctx context.Context, p *goose.Provider) error {
		_, err := p.UpTo(ctx, version)
		return err
	})
}

// MigrateDownTo rolls the schema back to version (every later migration's
// Down), to test a migration on the data stored before it.
func (d *DB) MigrateDownTo(ctx context.Context, version int64) error {
	return d.migrate(ctx, func(ctx context.Context, p *goose.Provider) error {
		_, err := p.DownTo(ctx, version)
		return err
	})
}

// MigrationVersion is the version the schema is at (0 for none).
func (d *DB) MigrationVersion(ctx context.Context) (int64, error) {
	var v int64
	err := d.migrate(ctx, func(ctx context.Context, p *goose.Provider) error {
		var err error
		v, err = p.GetDBVersion(ctx)
		return err
	})
	return v, err
}

// MigrationFile is a migration the binary carries.
type MigrationFile struct {
	Version int64
	Name    string // its file's name without .sql: 00054_segments
}

// Migrations lists the migrations the binary carries for dialect, in
// order.
func Migrations(dialect string) ([]MigrationFile, error) {
	sub, err := fs.Sub(migrations, "migrations/"+dialect)
	if err != nil {
		return nil, err
	}
	var out []MigrationFile
	err = fs.WalkDir(sub, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		v, err := goose.NumericComponent(path)
		if err != nil {
			return err
		}
		out = append(out, MigrationFile{Version: v, Name: strings.TrimSuffix(path, ".sql")})
		return nil
	})
	return out, err
}

// migrate runs run with a provider of the store's migrations, on
// PostgreSQL on connections of its own (see MigrationLockTimeout), again
// while it fails for a lock it waited too long for.
func (d *DB) migrate(ctx context.Context, run func(context.Context, *goose.Provider) error) error {
	sub, err := fs.Sub(migrations, "migrations/"+d.dialect)
	if err != nil {
		return err
	}
	if d.dialect != Postgres {
		p, err := goose.NewProvider(goose.DialectSQLite3, d.db, sub)
		if err != nil {
			return fmt.Errorf("migrations: %w", err)
		}
		if err := run(ctx, p); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return nil
	}
	db, closeDB, schema, err := d.migrationDB(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLockID(schema)),
		lock.WithLockTimeout(1, 600), lock.WithUnlockTimeout(1, 60))
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	// A database no migration has touched yet (a new install, a test's
	// schema) has its tables made empty by the migrations themselves: the
	// indexes later migrations build CONCURRENTLY, so as not to hold the
	// writes of a running release on a large table, are built plainly
	// here (plainIndexes). CONCURRENTLY waits for every older transaction
	// of the whole database, other schemas' included: test schemas
	// migrating side by side waited on each other's (internal/console's
	// tests went from 8 s to 9 minutes).
	if v, err := p.GetDBVersion(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	} else if v == 0 {
		if p, err = goose.NewProvider(goose.DialectPostgres, db, plainIndexes(sub), goose.WithSessionLocker(locker)); err != nil {
			return fmt.Errorf("migrations: %w", err)
		}
	}
	pause := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err = run(ctx, p)
		if err == nil || !lockWaitedTooLong(err) || attempt == migrationAttempts {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("migrate: %w", errors.Join(err, ctx.Err()))
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// migrationDB opens the connections migrations run on (PostgreSQL): the
// store's settings, with lock_timeout MigrationLockTimeout, and the
// schema they migrate, and the function that closes them. They need a
// session (the lock timeout is a startup setting, the lock a session's),
// which a pooler in transaction mode does not give, and refuses the
// setting of: with Options.ListenDSN they go to PostgreSQL directly.
func (d *DB) migrationDB(ctx context.Context) (*sql.DB, func(), string, error) {
	cfg := d.pool.Config()
	if d.direct != nil {
		cfg.ConnConfig = d.direct.Copy()
	}
	cfg.MinConns, cfg.MaxConns = 0, 2
	cfg.PrepareConn, cfg.AfterConnect, cfg.BeforeAcquire, cfg.AfterRelease = nil, nil, nil, nil
	cfg.ConnConfig.RuntimeParams["lock_timeout"] = strconv.FormatInt(MigrationLockTimeout.Milliseconds(), 10)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, "", fmt.Errorf("migrations: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool)
	closeDB := func() {
		db.Close()
		pool.Close()
	}
	var schema string
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		closeDB()
		return nil, nil, "", fmt.Errorf("migrations: %w", dbError(err))
	}
	return db, closeDB, schema, nil
}

// migrationLockID is the advisory lock of the migrations of schema: of
// one database, schemas migrate apart (the tests' do, side by side).
func migrationLockID(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("loyalty migrations " + schema))
	return int64(h.Sum64() >> 1)
}

// lockWaitedTooLong reports whether err is a statement that gave up
// waiting for a lock (lock_timeout), or the loser of a deadlock.
func lockWaitedTooLong(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "55P03" || pe.Code == "40P01")
}
