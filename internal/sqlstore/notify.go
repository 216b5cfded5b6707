package sqlstore

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// accessChannel is the PostgreSQL notification channel on which a change
// that ends cached token lookups (see accessCache) is announced to every
// instance sharing the database. The notification is sent inside the
// change's transaction, so it is delivered when, and only if, it commits.
// Its payload is the schema of the change: the channel is the whole
// database's, and stores in other schemas of the same database (other
// deployments, or tests running side by side) must not end this one's
// cache.
const accessChannel = "loyalty_access"

// accessListener keeps one connection listening on accessChannel and ends
// this instance's cached lookups on every notification, so a token revoked
// or rules changed through another instance are seen here within
// milliseconds instead of after TokenCacheTTL. While the connection is
// down the cache lives by its TTL alone, as without a listener; on every
// (re)connection the cache is ended once, for what was missed meanwhile.
type accessListener struct {
	up    atomic.Bool  // listening now
	heard atomic.Int64 // when the channel last delivered this schema's notification (UnixNano)
	pid   atomic.Int32 // the listening connection's server process (tests cut it)
	stop  context.CancelFunc
	done  chan struct{}
}

// While the listener hears the channel, cached lookups may live up to
// heardCacheTTL: every change that ends them is heard within
// milliseconds. To know that it still hears, each instance sends a ping
// on the channel every pingEvery through its own pool; a listener that has
// heard nothing, ping or change, for heardWithin counts as deaf (a
// connection gone without a word: a cable, a failover), and the cache
// lives by TokenCacheTTL alone again.
const (
	heardCacheTTL = time.Minute
	pingEvery     = time.Second
	heardWithin   = 3 * pingEvery
)

// hearing reports whether the listener hears the channel now.
func (l *accessListener) hearing() bool {
	return l != nil && l.up.Load() && time.Since(time.Unix(0, l.heard.Load())) < heardWithin
}

// listenConfig is the listener's connection: the one of dsn, or of the
// store's own database (main) when dsn is empty. Only a server that
// accepts writes sends the notifications (a hot standby cannot even
// LISTEN), so of several hosts it takes the writable one unless the URL
// says otherwise with target_session_attrs.
func listenConfig(main *pgx.ConnConfig, dsn string) (*pgx.ConnConfig, error) {
	if dsn == "" {
		return main.Copy(), nil
	}
	if p, err := ParseDSN(dsn); err != nil || p.Dialect != Postgres {
		return nil, fmt.Errorf("listen DSN: want a postgres:// URL, got %q", RedactURL(dsn))
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse listen postgres url: %w", err)
	}
	if u, err := url.Parse(dsn); err == nil && !u.Query().Has("target_session_attrs") {
		cfg.ValidateConnect = pgconn.ValidateConnectTargetSessionAttrsReadWrite
	}
	return cfg, nil
}

// listenAccess starts the listener of a PostgreSQL store, connecting
// with cfg.
func (d *DB) listenAccess(cfg *pgx.ConnConfig) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &accessListener{stop: cancel, done: make(chan struct{})}
	d.listener = l
	go func() {
		defer close(l.done)
		wait := 100 * time.Millisecond
		for ctx.Err() == nil {
			if err := d.listenOnce(ctx, cfg, l); err == nil || ctx.Err() != nil {
				return
			}
			l.up.Store(false)
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			wait = min(2*wait, 5*time.Second)
		}
	}()
}

// listenOnce listens on one connection until it fails or ctx ends.
func (d *DB) listenOnce(ctx context.Context, cfg *pgx.ConnConfig, l *accessListener) error {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// The schema the store's own changes announce: read through the
	// store's connections, which a separate listen URL (--db-listen) may
	// not share a search_path with.
	var schema string
	if err := d.db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+accessChannel); err != nil {
		return err
	}
	l.pid.Store(int32(conn.PgConn().PID()))
	l.heard.Store(time.Now().UnixNano())
	l.up.Store(true)
	d.tokens.changed()
	ping := "ping " + schema
	var pings sync.WaitGroup
	defer pings.Wait()
	pctx, stopPings := context.WithCancel(ctx)
	defer stopPings() // before the wait
	pings.Add(1)
	go func() {
		defer pings.Done()
		for {
			select {
			case <-pctx.Done():
				return
			case <-time.After(pingEvery):
			}
			// A ping that fails (the database away) is missed, which is
			// what a deaf listener must notice.
			_, _ = d.db.ExecContext(pctx, `SELECT pg_notify($1, $2)`, accessChannel, ping)
		}
	}()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		switch n.Payload {
		case schema:
			d.tokens.changed()
			l.heard.Store(time.Now().UnixNano())
		case ping:
			l.heard.Store(time.Now().UnixNano())
		}
	}
}

// close stops the listener and waits for it.
func (l *accessListener) close() {
	l.stop()
	<-l.done
}

// AccessListening reports whether this instance hears, right now, the
// changes other instances (PostgreSQL: the listener, while it hears its
// pings) or other processes (SQLite: the watcher, access_watch.go) make
// to what token lookups read.
func (d *DB) AccessListening() bool { return d.hearing() }

// hearing reports whether this instance hears other instances' (or, on
// SQLite, other processes') changes to what token lookups read.
func (d *DB) hearing() bool { return d.listener.hearing() || d.watch.hearing() }
