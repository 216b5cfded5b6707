package sqlstore

import (
	"context"
	"database/sql"
	"time"
)

// pruneBatch bounds the events one pruning statement removes.
const pruneBatch = 5000

// PruneEvents removes the numbered events created before t: each
// business's from its oldest, a window of pruneBatch numbers per
// statement, up to the first event of the window created at or after
// before, until its oldest event is that one. Numbers follow commits,
// whose times follow their events' within the moment a batch waits: an
// event created before the cutoff but numbered after a later one waits
// for the next prune. Every step walks the business's numbered events by
// number (SQLite's key, PostgreSQL's events_seq) from its oldest: no index
// on created_at or on the id is kept for it, and no plan rests on
// statistics. An unnumbered event (PostgreSQL) waits for its number.
func (d *DB) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	businesses, err := textColumn(ctx, d.db, `SELECT business_id FROM event_sequences ORDER BY business_id`)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, business := range businesses {
		for {
			var low sql.NullInt64
			if err := d.db.QueryRowContext(ctx, `SELECT MIN(seq) FROM events WHERE business_id = $1`, business).Scan(&low); err != nil {
				return total, dbError(err)
			}
			if !low.Valid {
				break
			}
			n := 0
			err := d.runTx(ctx, func(t *tx) error {
				// The business's last number outlives its newest event
				// (SQLite; PostgreSQL's row always holds it).
				if d.dialect == SQLite {
					if _, err := t.ExecContext(ctx, `UPDATE event_sequences AS s SET last_seq = `+d.lastSeqSQL()+`
						WHERE s.business_id = $1 AND s.last_seq < `+d.lastSeqSQL(), business); err != nil {
						return err
					}
				}
				res, err := t.ExecContext(ctx, `DELETE FROM events WHERE business_id = $1 AND seq >= $2 AND seq < $3
					AND seq < COALESCE((SELECT y.seq FROM events y WHERE y.business_id = $1 AND y.seq >= $2 AND y.seq < $3
						AND y.created_at >= $4 ORDER BY y.seq LIMIT 1), $3)`, business, low.Int64, low.Int64+pruneBatch, before.UTC())
				n, err = affected(res, err)
				return err
			})
			if err != nil {
				return total, dbError(err)
			}
			if total += n; n == 0 {
				break // the oldest event is not old enough
			}
		}
	}
	return total, nil
}

// affected is the rows a statement's result changed.
func affected(res sql.Result, err error) (int, error) {
	if err != nil {
		return 0, dbError(err)
	}
	n, err := res.RowsAffected()
	return int(n), dbError(err)
}
