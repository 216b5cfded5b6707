package loyalty

import (
	"cmp"
	"slices"
	"time"
)

// The rules of a customer's lots of points, as pure functions: which lots
// an entry opens, spends or gives back to, and what each lot is after.
// The store reads the lots an entry names under the customer's lock,
// calls these with those rows and writes what they return; it decides
// nothing itself.

// LotMove is one lot an entry changes: Points taken from it, or given
// back to it, and the lot as it is after (its remaining points and state).
type LotMove struct {
	Lot    PointLot
	Points int64
	Use    bool // points were taken: the entry's use of the lot is recorded
}

// LotUse is points a spending entry took from a lot, with the lot as it
// is now: what a cancellation of that entry gives back.
type LotUse struct {
	Lot    PointLot
	Points int64
}

// LotPlan is what one ledger entry does to its customer's lots: the moves
// of lots it names, the new lots it opens (its own earning, or points
// given back to lots that are gone), and the points it still takes from
// the active lots in spending order (TakeFIFO), read as they stand.
type LotPlan struct {
	Moves []LotMove
	Open  []PointLot
	Need  int64
}

// NamesLots reports whether an entry's lot moves depend on lots it names,
// which the store reads under the customer's lock before the balance
// moves (PlanTake, PlanGiveBack): a cancellation (the lot of the earning
// it reverses, or the lots the spending it reverses took from) or a
// return (pending lots first).
func (t Transaction) NamesLots() bool {
	return t.ReversesID != 0 || (t.Points < 0 && t.TakePending)
}

// PlanNamedLots plans an entry that NamesLots from the rows the store
// read under the customer's lock: for a taking entry the candidate lots
// (PlanTake), for a giving one the uses of the spending it reverses
// (PlanGiveBack). An entry that moves no points moves no lots, and its
// tier points never go below zero.
func PlanNamedLots(e *Transaction, lots []PointLot, uses []LotUse) LotPlan {
	switch {
	case e.Points < 0:
		return PlanTake(e, lots)
	case e.Points > 0:
		return PlanGiveBack(e, uses)
	}
	e.Pending, e.TierPoints = 0, max(e.TierPoints, 0)
	return LotPlan{}
}

// PlanLots is the lot plan of an entry that names no lot: an earning
// opens its lot, a spending takes from the active lots.
func PlanLots(e *Transaction) LotPlan {
	switch {
	case e.Points > 0:
		return LotPlan{Open: []PointLot{OpenedLot(e)}}
	case e.Points < 0:
		return LotPlan{Need: -e.Points}
	}
	return LotPlan{}
}

// OpenedLot is the lot an earning entry opens, under the terms settle
// gave it: pending until it activates when part of its points are.
func OpenedLot(e *Transaction) PointLot {
	l := PointLot{BusinessID: e.BusinessID, CustomerID: e.CustomerID, EntryID: e.ID, BranchID: e.BranchID,
		Earned: e.Points, Remaining: e.Points, ActivatesAt: e.Terms.ActivatesAt, ExpiresAt: e.Terms.ExpiresAt,
		NotifyAt: e.Terms.NoticeAt, State: LotActive}
	if l.ActivatesAt.IsZero() {
		l.ActivatesAt = e.CreatedAt
	}
	if e.Pending > 0 {
		l.State = LotPending
	}
	return l
}

// Take returns the lot with n points taken: emptied, an active lot is
// spent, and a pending one cancelled (it has nothing left to activate).
func (l PointLot) Take(n int64) PointLot {
	l.Remaining -= n
	if l.Remaining <= 0 {
		l.Remaining = 0
		if l.State == LotPending {
			l.State = LotCancelled
		} else {
			l.State = LotSpent
		}
	}
	return l
}

// GiveBack returns the lot with n points given back: a spent lot is
// active again.
func (l PointLot) GiveBack(n int64) PointLot {
	l.Remaining += n
	if l.State == LotSpent {
		l.State = LotActive
	}
	return l
}

// Activated returns the pending lot made usable.
func (l PointLot) Activated() PointLot {
	l.State = LotActive
	return l
}

// Expired returns the active lot with what remained of it expired.
func (l PointLot) Expired() PointLot {
	l.State, l.Remaining = LotExpired, 0
	return l
}

// PlanTake plans a taking entry that names lots: a cancellation of an
// earning takes from the lot of the entry it reverses, a return from the
// customer's pending lots, newest first; the rest comes from the active
// lots (Need). lots are the candidates the store read: the reversed
// entry's lot, or the customer's pending lots, in any order. It sets the
// entry's share of pending points and drops that share from its tier
// points, as pending points count towards tiers only once they activate.
func PlanTake(e *Transaction, lots []PointLot) LotPlan {
	lots = slices.Clone(lots)
	if e.ReversesID == 0 {
		slices.SortFunc(lots, func(a, b PointLot) int {
			return cmp.Or(b.ActivatesAt.Compare(a.ActivatesAt), cmp.Compare(b.ID, a.ID))
		})
	}
	p := LotPlan{}
	need, pending := -e.Points, int64(0)
	for _, l := range lots {
		if need <= 0 {
			break
		}
		if l.State != LotPending && l.State != LotActive {
			continue
		}
		n := min(l.Remaining, need)
		if n <= 0 {
			continue
		}
		need -= n
		p.Moves = append(p.Moves, LotMove{Lot: l.Take(n), Points: n, Use: true})
		if l.State == LotPending {
			pending += n
		}
	}
	p.Need = need
	e.Pending = -pending
	e.TierPoints = min(e.TierPoints+pending, 0)
	return p
}

// PlanGiveBack plans a cancellation of a spending entry: its points go
// back to the lots it took them from; to a new lot with the old one's
// expiry where that lot has expired or was cancelled; and under the
// entry's terms for any it took before lots were kept. It sets the
// entry's share of pending points, which count towards tiers only once
// they activate.
func PlanGiveBack(e *Transaction, uses []LotUse) LotPlan {
	uses = slices.Clone(uses)
	slices.SortFunc(uses, func(a, b LotUse) int { return cmp.Compare(a.Lot.ID, b.Lot.ID) })
	p := LotPlan{}
	left, pending := e.Points, int64(0)
	for _, u := range uses {
		n := min(u.Points, left)
		left -= n
		switch u.Lot.State {
		case LotPending:
			pending += n
			p.Moves = append(p.Moves, LotMove{Lot: u.Lot.GiveBack(n), Points: n})
		case LotActive, LotSpent:
			p.Moves = append(p.Moves, LotMove{Lot: u.Lot.GiveBack(n), Points: n})
		default:
			p.Open = append(p.Open, givenBack(e, n, u.Lot.ExpiresAt))
		}
	}
	if left > 0 {
		p.Open = append(p.Open, givenBack(e, left, e.Terms.ExpiresAt))
	}
	e.Pending = pending
	e.TierPoints = max(e.TierPoints-pending, 0)
	return p
}

// givenBack is a new active lot of points given back by e, expiring at
// expires (zero for never).
func givenBack(e *Transaction, points int64, expires time.Time) PointLot {
	return PointLot{BusinessID: e.BusinessID, CustomerID: e.CustomerID, EntryID: e.ID, BranchID: e.BranchID,
		Earned: points, Remaining: points, ActivatesAt: e.CreatedAt, ExpiresAt: expires, State: LotActive}
}

// SpendOrder is the order points are spent in: the active lot that
// expires first first, those that never expire last, then the oldest.
// The store reads active lots in this order (a walk of its index).
func SpendOrder(a, b PointLot) int {
	switch {
	case a.ExpiresAt.IsZero() != b.ExpiresAt.IsZero():
		if a.ExpiresAt.IsZero() {
			return 1
		}
		return -1
	case !a.ExpiresAt.Equal(b.ExpiresAt):
		return a.ExpiresAt.Compare(b.ExpiresAt)
	}
	return cmp.Compare(a.ID, b.ID)
}

// TakeFIFO takes up to need points from active lots in SpendOrder: lots
// is one page of the customer's active lots as the store read them. It
// returns the moves and the points still needed.
func TakeFIFO(need int64, lots []PointLot) ([]LotMove, int64) {
	lots = slices.Clone(lots)
	slices.SortFunc(lots, SpendOrder)
	var moves []LotMove
	for _, l := range lots {
		if need <= 0 {
			break
		}
		if l.State != LotActive || l.Remaining <= 0 {
			continue
		}
		n := min(l.Remaining, need)
		need -= n
		moves = append(moves, LotMove{Lot: l.Take(n), Points: n, Use: true})
	}
	return moves, need
}

// LotSettlement is a lot's activation or expiry: the entry that records
// it, and the lot before and after. The store writes it only while the
// lot is still as Before says (another scheduler may have settled it).
type LotSettlement struct {
	Before, After PointLot
	Entry         *Transaction
}

// SettleLotAt decides the activation (intent IntentActivation) or the
// expiry of a lot at a time: the entry dated then, what it moves (an
// activation moves the lot's points from pending to active and counts
// them towards tiers then; an expiry takes what remains and never lowers
// a tier), and the lot after.
func SettleLotAt(l PointLot, intent string, at time.Time) LotSettlement {
	e := NewLotEntry(l.BusinessID, l.CustomerID, intent, l.ID, at)
	e.BranchID = l.BranchID
	s := LotSettlement{Before: l, Entry: &e}
	if intent == IntentActivation {
		e.Pending, e.TierPoints = -l.Remaining, l.Remaining
		s.After = l.Activated()
	} else {
		e.Points, e.Expired = -l.Remaining, l.Remaining
		s.After = l.Expired()
	}
	return s
}
