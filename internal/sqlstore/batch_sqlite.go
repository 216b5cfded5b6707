package sqlstore

import (
	"context"
	"database/sql"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// writeSQLite writes a batch on SQLite: one transaction on the single
// writer, each entry two prepared statements (aloneUpdate, aloneInsert),
// its lot of points and its event, and the batch's baskets together.
// Every commit writes each page it changed to the WAL, so entries
// committed together share the pages they append to (the
// ledger's, the events') instead of writing them once each. An entry
// whose customer row refuses it is left out. SQLite's commit is
// in-process, so a batch that fails is known not to be written: its
// entries go the transactional way, which writes each on its own or
// explains why not.
func (b *appendBatch) writeSQLite(batch []*pendingAppend) {
	ctx := context.Background() // the batch serves several requests
	d := b.db
	update, err := d.writeStmt(ctx, aloneUpdate)
	if err != nil {
		b.finish(batch, nil)
		return
	}
	insert, err := d.writeStmt(ctx, aloneInsert)
	if err != nil {
		b.finish(batch, nil)
		return
	}
	// The statements of the batch's baskets' rows, beside the one-basket
	// statement every transaction has.
	n := 0
	for _, p := range batch {
		if p.e.Basket != nil {
			n++
		}
	}
	for ; n > 1; n -= maxBasketsInsert {
		d.writeStmt(ctx, insertBaskets[min(n, maxBasketsInsert)]) // else parsed in the transaction
	}
	ids := make([]int64, len(batch))
	var written map[int64]loyalty.Balance
	err = d.runTx(ctx, func(t *tx) error {
		written = map[int64]loyalty.Balance{}
		var events []loyalty.Event         // numbered together: one statement per business
		var baskets []*loyalty.Transaction // written together, after the entries
		for i, p := range batch {
			e := *p.e
			var bal loyalty.Balance
			err := t.StmtContext(ctx, update).QueryRowContext(ctx, append([]any{e.BusinessID, e.CustomerID, nullString(e.BranchID),
				e.Points - e.Pending, e.Giftcard, e.Pending}, activityArgs(&e)...)...).Scan(&bal.Points, &bal.Giftcard, &bal.Pending)
			if err == sql.ErrNoRows {
				continue
			} else if err != nil {
				return err
			}
			if err := t.StmtContext(ctx, insert).QueryRowContext(ctx, entryArgs(&e)...).Scan(&e.ID); err != nil {
				return err
			}
			if e.Basket != nil {
				baskets = append(baskets, &e)
			}
			// The entry's lot of points, as the domain plans it (an earning opens one).
			if err := t.applyLots(ctx, &e, loyalty.PlanLots(&e)); err != nil {
				return err
			}
			if e.Event != nil {
				ev, err := e.Event(e)
				if err != nil {
					return err
				}
				events = append(events, ev)
			}
			ids[i], written[e.ID] = e.ID, bal
		}
		if err := t.insertBaskets(ctx, baskets); err != nil {
			return err
		}
		return t.insertEvents(ctx, events)
	})
	if err != nil {
		written = nil
	}
	for i, p := range batch {
		p.e.ID = ids[i]
	}
	b.finish(batch, written)
}
