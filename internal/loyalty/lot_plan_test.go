package loyalty

import (
	"testing"
	"time"
)

// TestLotStates: the lot state machine the store writes as the domain
// leaves each lot.
func TestLotStates(t *testing.T) {
	active := PointLot{ID: 1, Remaining: 10, State: LotActive}
	if l := active.Take(4); l.Remaining != 6 || l.State != LotActive {
		t.Errorf("take 4 of 10: %+v", l)
	}
	if l := active.Take(10); l.Remaining != 0 || l.State != LotSpent {
		t.Errorf("take all of an active lot: %+v, want spent", l)
	}
	if l := (PointLot{Remaining: 5, State: LotPending}).Take(5); l.State != LotCancelled {
		t.Errorf("take all of a pending lot: %+v, want cancelled", l)
	}
	if l := active.Take(10).GiveBack(3); l.Remaining != 3 || l.State != LotActive {
		t.Errorf("give back to a spent lot: %+v, want active with 3", l)
	}
	if l := (PointLot{Remaining: 5, State: LotPending}).GiveBack(2); l.State != LotPending || l.Remaining != 7 {
		t.Errorf("give back to a pending lot: %+v", l)
	}
	if l := active.Expired(); l.State != LotExpired || l.Remaining != 0 {
		t.Errorf("expired: %+v", l)
	}
}

// TestTakeFIFOSpendsFirstExpiringFirst: whatever order a page comes in,
// the lot expiring first is spent first and lots that never expire last.
func TestTakeFIFOSpendsFirstExpiringFirst(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lots := []PointLot{
		{ID: 1, Remaining: 5, State: LotActive},                                  // never expires
		{ID: 2, Remaining: 5, State: LotActive, ExpiresAt: day.AddDate(0, 2, 0)}, // second
		{ID: 3, Remaining: 5, State: LotActive, ExpiresAt: day},                  // first
		{ID: 4, Remaining: 5, State: LotPending, ExpiresAt: day},                 // not spendable
	}
	moves, need := TakeFIFO(12, lots)
	if need != 0 || len(moves) != 3 {
		t.Fatalf("moves %+v, need %d", moves, need)
	}
	want := []struct {
		id, points int64
		state      string
	}{{3, 5, LotSpent}, {2, 5, LotSpent}, {1, 2, LotActive}}
	for i, w := range want {
		m := moves[i]
		if m.Lot.ID != w.id || m.Points != w.points || m.Lot.State != w.state || !m.Use {
			t.Errorf("move %d: %+v, want lot %d taking %d, %s", i, m, w.id, w.points, w.state)
		}
	}
	if _, need := TakeFIFO(100, lots); need != 85 {
		t.Errorf("more than the page holds: still need %d, want 85", need)
	}
}

// TestReturnTakesNewestPendingFirst: a return takes pending points back
// from the newest pending lot first, and its pending share earns no tier
// points back.
func TestReturnTakesNewestPendingFirst(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lots := []PointLot{
		{ID: 7, Remaining: 4, State: LotPending, ActivatesAt: day},
		{ID: 8, Remaining: 4, State: LotPending, ActivatesAt: day.AddDate(0, 0, 1)},
	}
	e := &Transaction{Points: -10, TierPoints: -10, TakePending: true}
	p := PlanNamedLots(e, lots, nil)
	if len(p.Moves) != 2 || p.Moves[0].Lot.ID != 8 || p.Moves[1].Lot.ID != 7 || p.Need != 2 {
		t.Fatalf("plan %+v", p)
	}
	if e.Pending != -8 || e.TierPoints != -2 {
		t.Errorf("pending %d, tier points %d; want -8 and -2", e.Pending, e.TierPoints)
	}
}

// TestGiveBackReopensLotsThatAreGone: a cancelled spending gives points
// back to the lots it took them from, and to a new lot (with the old
// one's expiry) where that lot has expired.
func TestGiveBackReopensLotsThatAreGone(t *testing.T) {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	expiry := at.AddDate(0, 1, 0)
	e := &Transaction{Points: 12, TierPoints: 12, ReversesID: 9, CreatedAt: at}
	p := PlanNamedLots(e, nil, []LotUse{
		{Lot: PointLot{ID: 2, State: LotExpired, ExpiresAt: expiry}, Points: 5},
		{Lot: PointLot{ID: 1, State: LotSpent}, Points: 4},
	})
	if len(p.Moves) != 1 || p.Moves[0].Lot.State != LotActive || p.Moves[0].Lot.Remaining != 4 || p.Moves[0].Use {
		t.Fatalf("moves %+v", p.Moves)
	}
	if len(p.Open) != 2 || p.Open[0].Remaining != 5 || !p.Open[0].ExpiresAt.Equal(expiry) || p.Open[1].Remaining != 3 {
		t.Fatalf("opened %+v", p.Open)
	}
}
