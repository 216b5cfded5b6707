package sqlstore

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/loyalty/loyalty/internal/worker"
)

// accessWatch is SQLite's counterpart of the PostgreSQL listener
// (notify.go): every process using the database file bumps
// access_generation in each transaction that ends cached token lookups,
// and this process reads it every watchEvery, ending its cache when it
// moved. A change made by another process (an admin command beside the
// service) is therefore seen within watchEvery, and while the reads
// succeed cached lookups may live up to heardCacheTTL; when they fail,
// the cache lives by TokenCacheTTL alone.
type accessWatch struct {
	heard atomic.Int64 // when the count was last read (UnixNano)
	last  atomic.Int64 // the count the cache reflects
	read  bool         // the last read succeeded (the watcher's own)
	stop  func()
}

// watchEvery is how often the count is read.
const watchEvery = 100 * time.Millisecond

// watchAccess starts the watcher of a SQLite store.
func (d *DB) watchAccess() {
	w := &accessWatch{}
	w.stop = worker.Start(context.Background(), func(ctx context.Context) {
		worker.Loop(ctx, watchEvery, nil, func(ctx context.Context) {
			var n int64
			if err := d.db.QueryRowContext(ctx, `SELECT n FROM access_generation WHERE id = 1`).Scan(&n); err != nil {
				// Not migrated yet, or the file unreadable: not heard.
				w.read = false
				return
			}
			// The first read, or the first after a failure, ends the
			// cache too: what changed before it went unheard.
			if last := w.last.Load(); n > last || !w.read {
				d.tokens.changed()
				w.last.CompareAndSwap(last, n)
				w.read = true
			}
			w.heard.Store(time.Now().UnixNano())
		})
	})
	d.watch = w
}

// own records a count this process's change moved the generation to; it
// ended the cache at its commit, which covers every count up to it, so
// the watcher need not end it again.
func (w *accessWatch) own(n int64) {
	for {
		last := w.last.Load()
		if n <= last || w.last.CompareAndSwap(last, n) {
			return
		}
	}
}

// hearing reports whether the watcher read the count lately.
func (w *accessWatch) hearing() bool {
	return w != nil && time.Since(time.Unix(0, w.heard.Load())) < 3*watchEvery
}
