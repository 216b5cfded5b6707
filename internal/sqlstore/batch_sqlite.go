package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// writeSQLite writes a batch on SQLite: each entry's two statements
// (aloneUpdate, aloneInsert) in turn, all in one transaction with one
// commit. SQLite has one writer and its commit writes the changed pages
// to the WAL, so a commit per reward spent most of a reward's time in
// write system calls; a commit per batch shares them. An entry whose
// customer row refuses it changes nothing and is reported false. If any
// statement fails, or the commit does, nothing of the batch is written
// and every entry is reported false: the callers take the transactional
// path, which writes each on its own or reports the error.
func (b *appendBatch) writeSQLite(batch []*pendingAppend) {
	// The transaction serves several requests, so no one request's
	// context may cancel it.
	ctx := context.Background()
	written := map[int64]loyalty.Balance{}
	update, err := b.db.writeStmt(ctx, aloneUpdate)
	if err != nil {
		b.finish(batch, nil)
		return
	}
	insert, err := b.db.writeStmt(ctx, aloneInsert)
	if err != nil {
		b.finish(batch, nil)
		return
	}
	var unbuilt *pendingAppend
	var unbuiltErr error
	err = b.db.runTx(ctx, func(t *tx) error {
		for _, p := range batch {
			e := p.e
			args := entryArgs(e)
			var bal loyalty.Balance
			err := t.StmtContext(ctx, update).QueryRowContext(ctx, args[:9]...).Scan(&bal.Points, &bal.Giftcard)
			if err == sql.ErrNoRows {
				e.ID = 0
				continue
			} else if err != nil {
				return err
			}
			if err := t.StmtContext(ctx, insert).QueryRowContext(ctx, args...).Scan(&e.ID); err != nil {
				return err
			}
			if e.Event != nil {
				// The entry's event, in the same transaction. An entry
				// whose event cannot be built is answered with the error
				// and the batch is written again without it.
				ev, err := e.Event(*e)
				if err != nil {
					unbuilt, unbuiltErr = p, err
					return err
				}
				if err := t.InsertEvent(ctx, &ev); err != nil {
					return err
				}
			}
			written[e.ID] = bal
		}
		return nil
	})
	if unbuilt != nil {
		unbuilt.finish(unbuiltErr)
		rest := make([]*pendingAppend, 0, len(batch)-1)
		for _, p := range batch {
			if p != unbuilt {
				p.e.ID = 0
				rest = append(rest, p)
			}
		}
		b.writeSQLite(rest)
		return
	}
	if err != nil {
		written = nil
	}
	b.finish(batch, written)
}
