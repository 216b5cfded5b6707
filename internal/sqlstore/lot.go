package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// balanceColumns are a membership's balance (alias c) on dialect, in
// balanceDest's order: the sums of the row, then the time its next lots
// expire with the points they hold (active lots always hold points: one
// emptied is spent), as one "<time>|<points>" value, NULL when none
// expires. Those are the first group, in expiry order, of the customer's
// expiring lots: one walk of point_lots_customer, where a minimum and a
// sum at it took three (every read of a customer pays for it:
// BenchmarkCustomerRead). PostgreSQL writes the time in UTC whatever the
// session's settings; SQLite stores it so already.
func balanceColumns(dialect string) string {
	if dialect == Postgres {
		return balanceColumnsPostgres
	}
	return balanceColumnsSQLite
}

const (
	balanceSums  = `c.points, c.giftcard, c.pending_points, c.expired_points, `
	expiringLots = ` FROM point_lots l WHERE l.business_id = c.business_id AND l.customer_id = c.user_id
		AND l.state = 'active' AND l.expires_at IS NOT NULL GROUP BY l.expires_at ORDER BY l.expires_at LIMIT 1)`
	balanceColumnsPostgres = balanceSums + `(SELECT to_char(l.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00:00|'
		|| SUM(l.remaining)` + expiringLots
	balanceColumnsSQLite = balanceSums + `(SELECT l.expires_at || '|' || SUM(l.remaining)` + expiringLots
	// balanceNeverExpiring is balanceColumns where no lot expires.
	balanceNeverExpiring = balanceSums + `NULL`
)

func balanceDest(b *loyalty.Balance) []any {
	return []any{&b.Points, &b.Giftcard, &b.Pending, &b.Expired, expiringInto{b}}
}

// expiringInto scans balanceColumns' next expiry into a balance.
type expiringInto struct{ b *loyalty.Balance }

// Scan implements sql.Scanner.
func (s expiringInto) Scan(v any) error {
	s.b.ExpiringAt, s.b.Expiring = time.Time{}, 0
	var text string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		text = x
	case []byte:
		text = string(x)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as the next expiry", v)
	}
	at, points, ok := strings.Cut(text, "|")
	n, err := strconv.ParseInt(points, 10, 64)
	if !ok || err != nil {
		return fmt.Errorf("sqlstore: unreadable next expiry %q", text)
	}
	var l looseTime
	if err := l.Scan(at); err != nil {
		return err
	}
	s.b.ExpiringAt, s.b.Expiring = l.Time.UTC(), n
	return nil
}

// States of a lot (loyalty.Lot*), as the scheduler's and the readers'
// queries name them.
const (
	lotPending = loyalty.LotPending
	lotActive  = loyalty.LotActive
	lotExpired = loyalty.LotExpired
)

// The rules every lot change keeps, with the customer's row: the points
// of the active lots add up to points, those of the pending lots to
// pending_points. Every change to a customer's lots runs after the change
// has locked the customer row (the balance update does), so two changes
// never see the same lot at once. Which lots a change moves, and what
// each is after, the domain decides (loyalty.PlanLots, PlanNamedLots,
// TakeFIFO); the store reads the rows it asks for and writes what it
// returns.

// planNamed locks the customer row, reads the lots an entry that names
// lots (loyalty.Transaction.NamesLots) depends on and has the domain plan
// its moves, which also sets the entry's pending share and tier points.
func (t *tx) planNamed(ctx context.Context, e *loyalty.Transaction) (loyalty.LotPlan, error) {
	// A customer who is not there is refused by the balance update that follows.
	if err := t.lockCustomer(ctx, e.BusinessID, e.CustomerID); err != nil {
		return loyalty.LotPlan{}, err
	}
	var lots []loyalty.PointLot
	var uses []loyalty.LotUse
	var err error
	switch {
	case e.Points < 0:
		lots, err = t.takeCandidates(ctx, e)
	case e.Points > 0:
		uses, err = t.lotUses(ctx, e.ReversesID)
	}
	if err != nil {
		return loyalty.LotPlan{}, err
	}
	return loyalty.PlanNamedLots(e, lots, uses), nil
}

// takeCandidates reads the lots a taking entry names: the pending or
// active lot of the earning it reverses, else (a return) the customer's
// pending lots.
func (t *tx) takeCandidates(ctx context.Context, e *loyalty.Transaction) ([]loyalty.PointLot, error) {
	query := `SELECT ` + lotColumns + ` FROM point_lots l WHERE l.entry_id = $1 AND l.business_id = $2 AND l.customer_id = $3
		AND l.state IN ('pending', 'active')`
	args := []any{e.ReversesID, e.BusinessID, e.CustomerID}
	if e.ReversesID == 0 {
		query = `SELECT ` + lotColumns + ` FROM point_lots l WHERE l.business_id = $1 AND l.customer_id = $2 AND l.state = 'pending'`
		args = args[1:]
	}
	return t.readLots(ctx, query, args...)
}

// readLots runs a query of lotColumns.
func (t *tx) readLots(ctx context.Context, query string, args ...any) ([]loyalty.PointLot, error) {
	rows, err := t.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.PointLot
	for rows.Next() {
		l, err := scanLot(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// lotUses reads what a spending entry took from each lot, with the lot.
func (t *tx) lotUses(ctx context.Context, entryID int64) ([]loyalty.LotUse, error) {
	rows, err := t.QueryContext(ctx, `SELECT `+lotColumns+`, u.points FROM point_lot_uses u
		JOIN point_lots l ON l.id = u.lot_id WHERE u.entry_id = $1`, entryID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []loyalty.LotUse
	for rows.Next() {
		var u loyalty.LotUse
		if u.Lot, err = scanLot(rows, &u.Points); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// applyLots writes a written entry's lot plan: the moves of the lots it
// names, the lots it opens, then what it still takes from the active
// lots, a page at a time in spending order as the domain takes them.
func (t *tx) applyLots(ctx context.Context, e *loyalty.Transaction, p loyalty.LotPlan) error {
	if err := t.moveLots(ctx, e, p.Moves); err != nil {
		return err
	}
	for _, l := range p.Open {
		if err := t.openLot(ctx, e, l); err != nil {
			return err
		}
	}
	for need, page := p.Need, fifoFirst; need > 0; page = min(2*page, fifoBatch) {
		lots, err := t.readLots(ctx, `SELECT `+lotColumns+` FROM point_lots l
			WHERE l.business_id = $1 AND l.customer_id = $2 AND l.state = 'active' AND l.remaining > 0
			ORDER BY l.expires_at IS NULL, l.expires_at, l.id LIMIT $3`, e.BusinessID, e.CustomerID, page)
		if err != nil {
			return err
		}
		var moves []loyalty.LotMove
		moves, need = loyalty.TakeFIFO(need, lots)
		if len(moves) == 0 {
			return fmt.Errorf("sqlstore: the active lots of customer %s hold less than its balance", e.CustomerID)
		}
		if err := t.moveLots(ctx, e, moves); err != nil {
			return err
		}
	}
	return nil
}

// moveLots writes each lot as a move leaves it, recording the entry's
// use of the lots it took from.
func (t *tx) moveLots(ctx context.Context, e *loyalty.Transaction, moves []loyalty.LotMove) error {
	for _, m := range moves {
		if _, err := t.ExecContext(ctx, `UPDATE point_lots SET remaining = $1, state = $2 WHERE id = $3`,
			m.Lot.Remaining, m.Lot.State, m.Lot.ID); err != nil {
			return err
		}
		if !m.Use {
			continue
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO point_lot_uses (entry_id, lot_id, points) VALUES ($1, $2, $3)`,
			e.ID, m.Lot.ID, m.Points); err != nil {
			return err
		}
	}
	return nil
}

// openLot writes a lot the entry opens.
func (t *tx) openLot(ctx context.Context, e *loyalty.Transaction, l loyalty.PointLot) error {
	_, err := t.stmt(ctx, insertLot).ExecContext(ctx,
		e.BusinessID, e.CustomerID, e.ID, l.Earned, l.Remaining, l.ActivatesAt.UTC(), nullTime(l.ExpiresAt), l.State,
		nullTime(l.NotifyAt))
	return err
}

// insertLot opens a lot; prepared on SQLite's writer (txStatements):
// every earning entry runs it, and parsing it was a tenth of the SQLite
// group writer's time.
const insertLot = `INSERT INTO point_lots (business_id, customer_id, entry_id, earned, remaining, activates_at,
		expires_at, state, notify_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

// applyLots reads the active lots a debit takes from fifoFirst at first,
// twice as many on each next page, at most fifoBatch: most debits take from
// the first lot or two of many (a redemption of a few points), and each
// lot read is scanned whole (its times parsed, on SQLite from text) for
// the domain to decide on.
const (
	fifoFirst = 2
	fifoBatch = 50
)
