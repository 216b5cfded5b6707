package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// appendBatch writes the AppendAlone entries that arrive while earlier
// batches are being written, together: on PostgreSQL one statement, one
// transaction, one commit for all of them; on SQLite one transaction
// (writeSQLite). Under load a reward then costs
// a share of one round trip and one commit instead of each on its own;
// alone, an entry is written at once in a batch of one.
//
// Each entry still moves its customer's balance and is written in the
// same statement, both or neither. An entry whose customer row refuses it
// (aloneGuard) is left out and reported false; if the statement fails as
// a whole (a deadlock with another transaction) every entry is reported
// false. Either way the caller takes the transactional path, which writes
// the entry on its own or explains why not.
//
// A batch whose outcome is unknown — the connection lost after the
// statement was sent, so it may have committed — is never replayed
// blindly: its entries' ids are taken from the ledger's sequence before it
// is sent, and resolve looks up which of them exist, after waiting for
// the customer rows the statement locked. Only entries known not to be
// written go the transactional way; if even that cannot be known, the
// callers get an error and nothing is written twice.
//
// A customer is never in two batches at once (nor twice in one), so the
// batches never wait on each other's row locks.
type appendBatch struct {
	db        *DB
	sequences map[string]bool // businesses whose event_sequences row exists
	ids       []int64         // ledger ids reserved from the sequence, not yet used
	conn      *batchConn      // PostgreSQL: the writer's own connection, or nil
	queue     chan *pendingAppend
	quit      chan struct{}
	once      sync.Once
	done      sync.WaitGroup
}

// pendingAppend is one AppendAlone call waiting for its batch.
type pendingAppend struct {
	key     customerKey // e's customer, kept apart: e is the caller's again once ready is closed
	ctx     context.Context
	e       *loyalty.Transaction
	written bool
	err     error
	ready   chan struct{}
}

const (
	maxBatch     = 256 // entries of one statement
	batchWriters = 1   // batches written at once
)

// newAppendBatch is d's group writer; on PostgreSQL it writes through a
// connection of its own made with cfg (see batchConn) when cfg allows.
func newAppendBatch(d *DB, cfg *pgx.ConnConfig) *appendBatch {
	b := &appendBatch{db: d, sequences: map[string]bool{}, queue: make(chan *pendingAppend, maxBatch), quit: make(chan struct{})}
	if cfg != nil {
		b.conn = newBatchConn(cfg)
	}
	return b
}

var errClosed = errors.New("sqlstore: database closed")

// append queues e for a batch and waits until it is written or left out.
func (b *appendBatch) append(ctx context.Context, e *loyalty.Transaction) (bool, error) {
	b.once.Do(func() {
		b.done.Add(1)
		go b.run()
	})
	p := &pendingAppend{key: customerKey{e.BusinessID, e.CustomerID}, ctx: ctx, e: e, ready: make(chan struct{})}
	select {
	case b.queue <- p:
	case <-ctx.Done():
		return false, ctx.Err()
	case <-b.quit:
		return false, errClosed
	}
	// Once queued, the entry is waited for even if ctx ends: a batch may
	// already be writing it.
	<-p.ready
	return p.written, p.err
}

// close stops taking entries, waits for the batches being written, and
// reports the entries still waiting closed.
func (b *appendBatch) close() {
	close(b.quit)
	b.done.Wait()
	if b.conn != nil {
		b.conn.drop()
	}
	for {
		select {
		case p := <-b.queue:
			p.finish(errClosed)
		default:
			return
		}
	}
}

func (p *pendingAppend) finish(err error) {
	p.err = err
	close(p.ready)
}

type customerKey struct{ business, customer string }

// run gathers entries into batches and hands each to a free writer.
func (b *appendBatch) run() {
	defer b.done.Done()
	var pending []*pendingAppend
	busy := map[customerKey]bool{} // customers of the batches being written
	finished := make(chan []*pendingAppend, batchWriters)
	writing := 0
	for {
		if writing < batchWriters && len(pending) > 0 {
			var batch []*pendingAppend
			batch, pending = b.pick(pending, busy)
			if len(batch) > 0 {
				writing++
				go func() {
					b.write(batch)
					finished <- batch
				}()
				continue
			}
		}
		select {
		case p := <-b.queue:
			pending = append(pending, p)
		drain:
			for len(pending) < 4*maxBatch {
				select {
				case p := <-b.queue:
					pending = append(pending, p)
				default:
					break drain
				}
			}
		case batch := <-finished:
			writing--
			for _, p := range batch {
				delete(busy, p.key)
			}
		case <-b.quit:
			for ; writing > 0; writing-- {
				<-finished
			}
			for _, p := range pending {
				p.finish(errClosed)
			}
			return
		}
	}
}

// pick takes from pending the next batch: at most maxBatch entries, one
// per customer, none of a customer in a batch being written. It drops
// (and answers) entries whose caller has gone, and marks the batch's
// customers busy.
func (b *appendBatch) pick(pending []*pendingAppend, busy map[customerKey]bool) (batch, rest []*pendingAppend) {
	for _, p := range pending {
		if err := p.ctx.Err(); err != nil {
			p.finish(err)
			continue
		}
		k := p.key
		if busy[k] || len(batch) == maxBatch {
			rest = append(rest, p)
			continue
		}
		busy[k] = true
		batch = append(batch, p)
	}
	return batch, rest
}

// testHookBatch, when set (by tests), runs before a batch statement is
// sent (committed false) and after it committed and returned (committed
// true); an error from it stands for the connection lost at that point,
// leaving the batch's outcome unknown to the writer.
var testHookBatch func(committed bool) error

// write runs one batch and wakes its callers.
func (b *appendBatch) write(batch []*pendingAppend) {
	if b.db.dialect == SQLite {
		b.writeSQLite(batch)
		return
	}
	n := len(batch)
	ids, err := b.reserve(n)
	if err != nil {
		// Nothing was sent: each entry goes the transactional way.
		b.finish(batch, nil)
		return
	}
	batch, ids, ev := batchEventsOf(batch, ids)
	n = len(batch)
	if err := b.ensureSequences(ev.business); err != nil {
		// Nothing was sent: each entry goes the transactional way.
		b.finish(batch, nil)
		return
	}
	ord, typeCode := make([]int32, n), make([]int32, n)
	amount, points, giftcard, visits := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	tierAmount, tierPoints := make([]int64, n), make([]int64, n)
	offer, coupon, card, reverses := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	hasDetails, created := make([]bool, n), make([]time.Time, n)
	pending, activates, expires, notices := make([]int64, n), make([]time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
	lotState := make([]string, n) // the state of the lot the entry opens, "" for none
	actVisits, actSpend, visitAt, visitBranch := make([]int64, n), make([]int64, n), make([]*time.Time, n), make([]string, n)
	text := make([][]string, 13) // business, customer, branch, intent, name, external order, custom fields 1-5, receipt, comments
	for k := range text {
		text[k] = make([]string, n)
	}
	var bk basketArrays
	bk.reserve(batch)
	for i, p := range batch {
		e := p.e
		bk.add(int32(i), e)
		d := e.Details
		if d == nil {
			d = &loyalty.TransactionDetails{}
		}
		ord[i], typeCode[i] = int32(i), int32(e.TypeCode)
		amount[i], points[i], giftcard[i], visits[i] = int64(e.Amount), e.Points, int64(e.Giftcard), e.Visits
		tierAmount[i], tierPoints[i] = int64(e.TierAmount), e.TierPoints
		offer[i], coupon[i], card[i], reverses[i] = e.OfferID, e.CouponID, e.GiftcardID, e.ReversesID
		hasDetails[i], created[i] = e.Details != nil, e.CreatedAt.UTC()
		pending[i], activates[i] = e.Pending, e.CreatedAt.UTC()
		if open := loyalty.PlanLots(e).Open; len(open) == 1 {
			// A batched entry opens its own lot at most (see loyalty.Batchable).
			l := open[0]
			lotState[i], activates[i] = l.State, l.ActivatesAt.UTC()
			expires[i], notices[i] = optionalTime(l.ExpiresAt), optionalTime(l.NotifyAt)
		}
		a := loyalty.EntryActivity(e)
		actVisits[i], actSpend[i], visitAt[i], visitBranch[i] = a.Visits, int64(a.Spend), a.VisitAt, a.VisitBranch
		for k, v := range []string{e.BusinessID, e.CustomerID, e.BranchID, e.Intent, e.Name, d.ExternalOrderID,
			d.CustomField1, d.CustomField2, d.CustomField3, d.CustomField4, d.CustomField5, e.Receipt, e.Comments} {
			text[k][i] = v
		}
	}
	// The statement serves several requests, so no one request's context
	// may cancel it; close waits for it to end.
	var written map[int64]loyalty.Balance
	if testHookBatch != nil {
		err = testHookBatch(false)
	}
	if err == nil {
		args := []any{ord, text[0], text[1], text[2], text[3], typeCode, text[4],
			amount, points, giftcard, visits, tierAmount, tierPoints, offer, coupon, card, reverses,
			text[5], text[6], text[7], text[8], text[9], text[10], hasDetails, created, ids, text[11], text[12], pending, activates, expires,
			notices, lotState, ev.ord, ev.id, ev.business, ev.typ, ev.created, ev.data, ev.entry,
			bk.ord, bk.tax, bk.shipping, bk.channel, bk.line.ord, bk.line.n, bk.line.sku, bk.line.product, bk.line.category,
			bk.line.quantity, bk.line.price, bk.line.discount, bk.line.points, actVisits, actSpend, visitAt, visitBranch}
		written, err = b.send(args)
	}
	if err == nil && testHookBatch != nil {
		err = testHookBatch(true)
	}
	switch {
	case err == nil:
	case statementFailed(err):
		// The server refused the statement: nothing of it committed.
		written = nil
	default:
		if written, err = b.resolve(batch, ids); err != nil {
			for _, p := range batch {
				// Wrapping keeps the cause, so an outage still reads as one.
				p.finish(fmt.Errorf("sqlstore: a batch of ledger entries may or may not have been written: %w", err))
			}
			return
		}
	}
	for i, p := range batch {
		p.e.ID = ids[i]
	}
	b.finish(batch, written)
}

// finish wakes a batch's callers: an entry whose id is in written was
// written with that balance; the others go the transactional way.
func (b *appendBatch) finish(batch []*pendingAppend, written map[int64]loyalty.Balance) {
	for _, p := range batch {
		bal, ok := written[p.e.ID]
		if ok {
			p.written, p.e.Balance = true, bal
		} else {
			p.written, p.e.ID, p.e.Balance = false, 0, loyalty.Balance{}
		}
		close(p.ready)
	}
}

// reserve takes n ledger ids, reserving them from the sequence a block at
// a time (one round trip per maxBatch entries).
func (b *appendBatch) reserve(n int) ([]int64, error) {
	if len(b.ids) < n {
		rows, err := b.db.db.QueryContext(context.Background(),
			`SELECT nextval(pg_get_serial_sequence('transactions', 'id')) FROM generate_series(1, $1)`, maxBatch+n)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			b.ids = append(b.ids, id)
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	ids := b.ids[:n:n]
	b.ids = b.ids[n:]
	return ids, nil
}

// resolve finds which entries of a batch whose outcome is unknown were
// written, with their customers' balances now. It first locks the batch's
// customer rows: a statement still committing on the lost connection holds
// them, so once they are ours its outcome is final.
func (b *appendBatch) resolve(batch []*pendingAppend, ids []int64) (map[int64]loyalty.Balance, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	businesses, customers := make([]string, len(batch)), make([]string, len(batch))
	for i, p := range batch {
		businesses[i], customers[i] = p.e.BusinessID, p.e.CustomerID
	}
	written := map[int64]loyalty.Balance{}
	err := b.db.runTx(ctx, func(t *tx) error {
		if _, err := t.ExecContext(ctx, `SELECT 1 FROM customers cu
			JOIN unnest($1::text[], $2::text[]) AS k(business_id, customer_id) ON cu.business_id = k.business_id AND cu.user_id = k.customer_id
			ORDER BY cu.business_id, cu.user_id FOR UPDATE OF cu`, businesses, customers); err != nil {
			return err
		}
		rows, err := t.QueryContext(ctx, `SELECT t.id, cu.points, cu.giftcard, cu.pending_points FROM transactions t
			JOIN customers cu ON cu.business_id = t.business_id AND cu.user_id = t.customer_id
			WHERE t.id = ANY($1::bigint[])`, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, pts, gc, pend int64
			if err := rows.Scan(&id, &pts, &gc, &pend); err != nil {
				return err
			}
			written[id] = loyalty.Balance{Points: pts, Giftcard: loyalty.Money(gc), Pending: pend}
		}
		return rows.Err()
	})
	return written, err
}

// statementFailed reports whether the server answered the statement with
// an error, so that none of it committed (as opposed to a lost connection,
// after which it may have).
func statementFailed(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe)
}

// optionalTime is t in UTC, or nil (NULL) when zero.
func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
