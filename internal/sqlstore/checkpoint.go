package sqlstore

import (
	"context"
	"sync"
	"time"
)

// SQLite's checkpoints (WAL mode): by default the connection whose commit
// takes the log past 1,000 pages copies the log into the database file
// and syncs it, inside that commit. Every write here commits on the one
// writer, so the writer did that work while every write waited: a sixth
// of its time in BenchmarkRewardByAmount/sqlite (a sync and the copy).
//
// A checkpointer of its own does it instead, beside the writer: once a
// write has committed it waits checkpointEvery, gathering more, then runs
// a PASSIVE checkpoint on a reader connection, which copies what no
// reader still needs without waiting for the writer or the readers. When
// the whole log is in the file, the writer starts the log again from its
// beginning (SQLite does so at the next write), so the log stays about as
// long as a checkpointEvery of writes. The writer keeps its own
// checkpoints for when the log grows past writerAutocheckpoint pages
// anyway (a checkpointer that fails, or readers that hold it back).
type checkpointer struct {
	wake chan struct{} // a write committed
	quit chan struct{}
	done sync.WaitGroup
}

const (
	checkpointEvery      = 250 * time.Millisecond
	writerAutocheckpoint = 10_000 // pages, 40 MB of log at SQLite's 4 KiB
)

// startCheckpoints runs d's checkpointer until stopCheckpoints.
func (d *DB) startCheckpoints() {
	c := &checkpointer{wake: make(chan struct{}, 1), quit: make(chan struct{})}
	d.ckpt = c
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		for {
			select {
			case <-c.quit:
				return
			case <-c.wake:
			}
			select {
			case <-c.quit:
				return
			case <-time.After(checkpointEvery):
			}
			// A failure (the file busy with another process's checkpoint)
			// leaves the log to the next round, or to the writer's own.
			_, _ = d.db.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
		}
	}()
}

// wrote tells the checkpointer that a write committed.
func (d *DB) wrote() {
	if d.ckpt == nil {
		return
	}
	select {
	case d.ckpt.wake <- struct{}{}:
	default:
	}
}

// stopCheckpoints stops the checkpointer; closing the last connection
// checkpoints the rest.
func (d *DB) stopCheckpoints() {
	if d.ckpt == nil {
		return
	}
	close(d.ckpt.quit)
	d.ckpt.done.Wait()
}
