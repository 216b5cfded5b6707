package sqlstore

import (
	"context"
	"database/sql"
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

// States of a lot: pending until it activates, active while it has
// points to spend, spent when it has none left (giving points back makes
// it active again), expired once the scheduler expired it, cancelled when
// it was taken back before it activated.
const (
	lotPending   = "pending"
	lotActive    = "active"
	lotSpent     = "spent"
	lotExpired   = "expired"
	lotCancelled = "cancelled"
)

// The rules every lot change keeps, with the customer's row: the points
// of the active lots add up to points, those of the pending lots to
// pending_points. Every change to a customer's lots runs after the change
// has locked the customer row (the balance update does), so two changes
// never see the same lot at once.

// lotMove is points taken from (or given back to) one lot.
type lotMove struct {
	lot     int64
	points  int64
	pending bool // the lot is pending: the points are pending ones
}

// lotPlan is what an entry does to the lots that must be read before its
// balance moves: the moves from (or to) named lots, then, for a spending
// entry, the rest taken first-expiring-first from the active lots.
type lotPlan struct {
	moves   []lotMove
	reopen  []lotReopen // points given back to lots that are gone: new lots with their expiry
	pending int64       // of the moves, the pending points
}

// lotReopen is points given back to a lot that expired or was cancelled.
type lotReopen struct {
	points  int64
	expires sql.NullTime
}

// planned reports whether an entry's lot moves depend on lots it names:
// a cancellation (the lot of the entry it reverses, or the lots the
// spending it reverses took from) or a return (pending lots first).
func planned(e *loyalty.Transaction) bool {
	return e.ReversesID != 0 || (e.Points < 0 && e.TakePending)
}

// planLots locks the customer row and reads the lots an entry's moves
// depend on, setting e.Pending to its share of pending points; the part
// of its tier points that would move pending points is dropped, as
// pending points count towards tiers only once they activate.
func (t *tx) planLots(ctx context.Context, e *loyalty.Transaction) (*lotPlan, error) {
	// A customer who is not there is refused by the balance update that follows.
	if err := t.lockCustomer(ctx, e.BusinessID, e.CustomerID); err != nil {
		return nil, err
	}
	p := &lotPlan{}
	var err error
	if e.Points > 0 {
		err = t.planGiveBack(ctx, e, p)
	} else if e.Points < 0 {
		err = t.planTake(ctx, e, p)
	}
	if err != nil {
		return nil, err
	}
	if e.Points < 0 {
		e.Pending = -p.pending
		e.TierPoints = min(e.TierPoints+p.pending, 0)
	} else {
		e.Pending = p.pending
		e.TierPoints = max(e.TierPoints-p.pending, 0)
	}
	return p, nil
}

// planTake plans what a cancellation of an earning takes from the lot of
// the entry it reverses, or what a return takes from pending lots, newest
// first; the rest comes from the active lots later.
func (t *tx) planTake(ctx context.Context, e *loyalty.Transaction, p *lotPlan) error {
	query := `SELECT id, remaining, state FROM point_lots WHERE entry_id = $1 AND business_id = $2 AND customer_id = $3
		AND state IN ('pending', 'active')`
	args := []any{e.ReversesID, e.BusinessID, e.CustomerID}
	if e.ReversesID == 0 {
		query = `SELECT id, remaining, state FROM point_lots WHERE business_id = $1 AND customer_id = $2 AND state = 'pending'
			ORDER BY activates_at DESC, id DESC`
		args = args[1:]
	}
	rows, err := t.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	need := -e.Points
	for rows.Next() && need > 0 {
		var m lotMove
		var state string
		if err := rows.Scan(&m.lot, &m.points, &state); err != nil {
			return err
		}
		m.points, m.pending = min(m.points, need), state == lotPending
		if m.points == 0 {
			continue
		}
		need -= m.points
		p.moves = append(p.moves, m)
		if m.pending {
			p.pending += m.points
		}
	}
	return rows.Err()
}

// planGiveBack plans a cancellation of a spending entry: its points go
// back to the lots it took them from; to a new lot with the old one's
// expiry where that lot is gone; and under e.Terms for any it took before
// lots were kept.
func (t *tx) planGiveBack(ctx context.Context, e *loyalty.Transaction, p *lotPlan) error {
	rows, err := t.QueryContext(ctx, `SELECT u.lot_id, u.points, l.state, l.expires_at FROM point_lot_uses u
		JOIN point_lots l ON l.id = u.lot_id WHERE u.entry_id = $1 ORDER BY u.lot_id`, e.ReversesID)
	if err != nil {
		return err
	}
	defer rows.Close()
	left := e.Points
	for rows.Next() {
		var m lotMove
		var state string
		var expires sql.NullTime
		if err := rows.Scan(&m.lot, &m.points, &state, &expires); err != nil {
			return err
		}
		m.points = min(m.points, left)
		left -= m.points
		switch state {
		case lotPending:
			m.pending = true
			p.pending += m.points
			p.moves = append(p.moves, m)
		case lotActive, lotSpent:
			p.moves = append(p.moves, m)
		default:
			p.reopen = append(p.reopen, lotReopen{points: m.points, expires: expires})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if left > 0 {
		p.reopen = append(p.reopen, lotReopen{points: left, expires: nullTime(e.Terms.ExpiresAt)})
	}
	return nil
}

// moveLots does to the lots what a written entry did to the balance.
func (t *tx) moveLots(ctx context.Context, e *loyalty.Transaction, p *lotPlan) error {
	if p == nil {
		switch {
		case e.Points > 0:
			return t.openLot(ctx, e)
		case e.Points < 0:
			return t.takeFIFO(ctx, e, -e.Points)
		}
		return nil
	}
	taken := int64(0)
	for _, m := range p.moves {
		if err := t.moveLot(ctx, e, m); err != nil {
			return err
		}
		taken += m.points
	}
	for _, r := range p.reopen {
		if _, err := t.ExecContext(ctx, `INSERT INTO point_lots (business_id, customer_id, entry_id, earned, remaining,
			activates_at, expires_at, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			e.BusinessID, e.CustomerID, e.ID, r.points, r.points, e.CreatedAt.UTC(), r.expires, lotActive); err != nil {
			return err
		}
		taken += r.points
	}
	if e.Points < 0 && -e.Points > taken {
		return t.takeFIFO(ctx, e, -e.Points-taken)
	}
	return nil
}

// moveLot takes m.points from a lot (for a spending entry, recording the
// use) or gives them back to it.
func (t *tx) moveLot(ctx context.Context, e *loyalty.Transaction, m lotMove) error {
	if e.Points > 0 {
		_, err := t.ExecContext(ctx, `UPDATE point_lots SET remaining = remaining + $1,
			state = CASE WHEN state = 'spent' THEN 'active' ELSE state END WHERE id = $2`, m.points, m.lot)
		return err
	}
	// A pending lot emptied has nothing left to activate.
	if _, err := t.ExecContext(ctx, `UPDATE point_lots SET remaining = remaining - $1,
		state = CASE WHEN remaining - $1 > 0 THEN state WHEN state = 'pending' THEN 'cancelled' ELSE 'spent' END WHERE id = $2`,
		m.points, m.lot); err != nil {
		return err
	}
	_, err := t.ExecContext(ctx, `INSERT INTO point_lot_uses (entry_id, lot_id, points) VALUES ($1, $2, $3)`, e.ID, m.lot, m.points)
	return err
}

// openLot opens the lot of an earning entry.
func (t *tx) openLot(ctx context.Context, e *loyalty.Transaction) error {
	state := lotActive
	if e.Pending > 0 {
		state = lotPending
	}
	_, err := t.stmt(ctx, insertLot).ExecContext(ctx,
		e.BusinessID, e.CustomerID, e.ID, e.Points, e.Points, activation(e).UTC(), nullTime(e.Terms.ExpiresAt), state,
		nullTime(e.Terms.NoticeAt))
	return err
}

// insertLot opens a lot; prepared on SQLite's writer (txStatements):
// every earning entry runs it, and parsing it was a tenth of the SQLite
// group writer's time.
const insertLot = `INSERT INTO point_lots (business_id, customer_id, entry_id, earned, remaining, activates_at,
		expires_at, state, notify_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`

// activation is when the lot of an earning entry activates: its terms',
// or the entry's own time when it has none.
func activation(e *loyalty.Transaction) time.Time {
	if e.Terms.ActivatesAt.IsZero() {
		return e.CreatedAt
	}
	return e.Terms.ActivatesAt
}

// fifoBatch is how many lots takeFIFO reads at a time.
const fifoBatch = 50

// takeFIFO takes points from the customer's active lots, the one that
// expires first first and those that never expire last.
func (t *tx) takeFIFO(ctx context.Context, e *loyalty.Transaction, need int64) error {
	for need > 0 {
		var moves []lotMove
		rows, err := t.QueryContext(ctx, `SELECT id, remaining FROM point_lots
			WHERE business_id = $1 AND customer_id = $2 AND state = 'active' AND remaining > 0
			ORDER BY expires_at IS NULL, expires_at, id LIMIT $3`, e.BusinessID, e.CustomerID, fifoBatch)
		if err != nil {
			return err
		}
		for rows.Next() && need > 0 {
			var m lotMove
			if err := rows.Scan(&m.lot, &m.points); err != nil {
				rows.Close()
				return err
			}
			m.points = min(m.points, need)
			need -= m.points
			moves = append(moves, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(moves) == 0 {
			return fmt.Errorf("sqlstore: the active lots of customer %s hold less than its balance", e.CustomerID)
		}
		for _, m := range moves {
			if err := t.moveLot(ctx, e, m); err != nil {
				return err
			}
		}
	}
	return nil
}
