package loyalty

import (
	"context"
	"errors"
	"time"
)

// The tier keeper: what a customer's level was last announced as, the
// level a downgrade policy keeps through a period, and the tier.changed
// events. Two things change a level. A transaction moves the totals: the
// keeper (events.TierKeeper) follows the event log and announces the
// customers whose level it moved. A calendar period ends: the points
// scheduler takes every customer into the new period (RollTiers), keeping
// what the downgrade policy keeps and announcing each level it lowers.
// Both run in transactions that lock the program's row, one at a time per
// business, so a level is announced once.

// CustomerTier is what the keeper holds for a customer in a program.
type CustomerTier struct {
	// Known is whether the keeper holds a row: without one, the level
	// announced is the one a new customer holds (Tier.base).
	Known bool
	// LevelID is the level last announced; 0 for none.
	LevelID int64
	// FloorID is the level the downgrade policy keeps through the period
	// that starts at FloorFrom; 0 for none.
	FloorID   int64
	FloorFrom time.Time
	// PreviousID is the level the last change announced came from (0:
	// none), and ChangedAt when it was announced (zero: never).
	PreviousID int64
	ChangedAt  time.Time
}

// same reports whether two holdings are the same.
func (ct CustomerTier) same(o CustomerTier) bool {
	return ct.Known == o.Known && ct.LevelID == o.LevelID && ct.FloorID == o.FloorID && ct.FloorFrom.Equal(o.FloorFrom) &&
		ct.PreviousID == o.PreviousID && ct.ChangedAt.Equal(o.ChangedAt)
}

// TierRoll is how far a program's period ends have been done.
type TierRoll struct {
	// RolledTo is the start of the period the program's customers were
	// last taken into; zero when that was never done.
	RolledTo time.Time
	// After is, while a period end is under way, the last customer id
	// taken into the new period.
	After string
}

// TierKeepTx is the part of a transaction the keeper and the period ends
// use.
type TierKeepTx interface {
	// LockTierRoll locks a program's row until the commit and returns the
	// program and how far its period ends have been done.
	LockTierRoll(ctx context.Context, businessID string, tierID int64) (Tier, TierRoll, error)
	// SetTierRoll stores how far a program's period ends have been done.
	SetTierRoll(ctx context.Context, tierID int64, r TierRoll) error
	// CustomerIDsAfter lists up to limit active customers of a business
	// with an id after after, in id order.
	CustomerIDsAfter(ctx context.Context, businessID, after string, limit int) ([]string, error)
	// TierTotalsOf sums each customer's tier spend, points and visits in
	// [from, to); a customer without entries there is left out.
	TierTotalsOf(ctx context.Context, businessID string, ids []string, from, to time.Time) (map[string]TierTotals, error)
	// LatestEntry is a customer's latest ledger entry whose intent is not
	// one of skip: the last by creation time, then id (0 for none).
	LatestEntry(ctx context.Context, businessID, customerID string, skip []string) (id int64, at time.Time, err error)
	// CustomerTiers reads what the keeper holds for these customers in a
	// program; a customer without a row is left out.
	CustomerTiers(ctx context.Context, businessID string, tierID int64, ids []string) (map[string]CustomerTier, error)
	// PutCustomerTier stores what the keeper holds for a customer.
	PutCustomerTier(ctx context.Context, businessID string, tierID int64, customerID string, ct CustomerTier) error
}

// TierRollStore finds the programs whose period ends may be due.
type TierRollStore interface {
	// TiersToRoll lists the live businesses whose enabled calendar
	// program was last taken into a period that began before since (or
	// never): only they can have a period end due.
	TiersToRoll(ctx context.Context, since time.Time, limit int) ([]string, error)
}

// The reasons of a tier.changed event.
const (
	TierChangeActivity  = "activity"   // a transaction moved the totals
	TierChangePeriodEnd = "period_end" // a calendar period ended
)

// ErrTierRollPending is KeepTiers' answer while a period end of the
// program is due and not done: the keeper waits for the scheduler.
var ErrTierRollPending = errors.New("loyalty: a tier period end is under way")

// keeps reports whether the program keeps levels across a period's end.
func (t Tier) keeps() bool {
	return t.DowngradePolicy == DowngradeKeep || t.DowngradePolicy == DowngradeOneDown
}

// kept is the level the downgrade policy keeps through the next period
// of one held when a period ends; -1 for none.
func (t Tier) kept(held int) int {
	switch t.DowngradePolicy {
	case DowngradeKeep:
		return held
	case DowngradeOneDown:
		return max(held-1, -1)
	}
	return -1
}

// base is the level a customer holds with nothing counted (a first level
// without thresholds), or -1.
func (t Tier) base() int { return t.reached(TierTotals{}) }

// levelIndex is the index of the level with this id, or -1.
func (t Tier) levelIndex(id int64) int {
	for i, l := range t.Levels {
		if id != 0 && l.ID == id {
			return i
		}
	}
	return -1
}

// lost selects the customers whose last change announced took them from
// level id or above to a level below it, or to none.
func (t Tier) lost(id int64) *TierCriterion {
	c := &TierCriterion{TierID: t.ID, LevelIDs: []int64{0}}
	at := t.levelIndex(id)
	for i, l := range t.Levels {
		if i < at {
			c.LevelIDs = append(c.LevelIDs, l.ID)
		} else {
			c.FromLevelIDs = append(c.FromLevelIDs, l.ID)
		}
	}
	return c
}

// levelID is the id of the level at index i, or 0 for none.
func (t Tier) levelID(i int) int64 {
	if i < 0 || i >= len(t.Levels) {
		return 0
	}
	return t.Levels[i].ID
}

// floorIn is the level ct keeps through the period starting at start, or
// -1: none unless the program keeps levels (a program switched back to
// recompute ignores the levels it kept before).
func (t Tier) floorIn(ct CustomerTier, start time.Time) int {
	if !t.keeps() || ct.FloorID == 0 || !ct.FloorFrom.Equal(start) {
		return -1
	}
	return t.levelIndex(ct.FloorID)
}

// keptLevels reads what the keeper holds for customers of t, for a read
// of their levels: nothing unless the program keeps levels, as only a
// kept level changes what they hold (Tier.floorIn).
func keptLevels(ctx context.Context, r TierReader, t Tier, ids []string) (map[string]CustomerTier, error) {
	if !t.keeps() {
		return map[string]CustomerTier{}, nil
	}
	return r.CustomerTiers(ctx, t.BusinessID, t.ID, ids)
}

// announced is the level last announced for ct.
func (t Tier) announced(ct CustomerTier) int {
	if !ct.Known {
		return t.base()
	}
	return t.levelIndex(ct.LevelID)
}

// heldIn is the level held in period p with its totals cur, the previous
// period's prev and what ct keeps: the highest of what cur reaches, what
// prev reaches under base_previous_period 1, and the level kept.
func (t Tier) heldIn(p TierPeriod, cur, prev TierTotals, ct CustomerTier) int {
	held := t.reached(cur.atLeastZero())
	if t.BasePreviousPeriod == 1 && t.ResetType != TierResetNever {
		held = max(held, t.reached(prev))
	}
	return max(held, t.floorIn(ct, p.Start))
}

// atLeastZero is totals with each value at least zero: returns of earlier
// spend do not make a period's totals negative.
func (totals TierTotals) atLeastZero() TierTotals {
	return TierTotals{Amount: max(totals.Amount, 0), Points: max(totals.Points, 0), Visits: max(totals.Visits, 0)}
}

// tierChangeJSON is the data of a tier.changed event: the customer, the
// level held now and the one before (each as the API shows a tier level,
// null for none), and why.
type tierChangeJSON struct {
	Customer          idJSON         `json:"customer"`
	TierID            int64          `json:"tier_id"`
	TierLevel         *TierLevelJSON `json:"tier_level"`
	PreviousTierLevel *TierLevelJSON `json:"previous_tier_level"`
	Direction         string         `json:"direction"` // up or down
	Reason            string         `json:"reason"`    // TierChangeActivity or TierChangePeriodEnd
	// Transaction is, for a change of activity, the customer's latest
	// transaction counted when the change was found (TierMove); null for
	// a period end.
	Transaction *entryRefJSON `json:"transaction"`
	ChangedAt   string        `json:"changed_at"`
}

// entryRefJSON names a ledger entry as the API shows its id.
type entryRefJSON struct {
	ID int64 `json:"id"`
}

// TierMove is a customer whose transactions, in a page of the feed, moved
// the tier totals.
type TierMove struct {
	CustomerID string
	// EntryID is the latest of those transactions as the feed names it
	// (a cancellation's event names the entry cancelled), which a
	// tier.changed event of the move names.
	EntryID int64
	// Written is the last of the customer's entries whose
	// transaction.created the page holds (0 for none), and WrittenAt its
	// time.
	Written   int64
	WrittenAt time.Time
}

// unfollowed are the intents of the entries the keeper does not follow:
// their events are not transaction.created but points.activated and
// points.expired, and a tier.changed never names them.
var unfollowed = []string{IntentActivation, IntentExpiry}

// cause is the transaction a change of m's customer names: the move's,
// unless the customer's latest entry the keeper follows is newer than the
// page's last (by time, then id), which is then named. The totals count
// every entry committed, the page shows those the feed had numbered when
// the keeper read it: a customer's next reward, committed in between,
// brought the change (naming the page's would name a reward short of the
// level), and its own page finds the level announced already.
func (m TierMove) cause(ctx context.Context, tx TierKeepTx, businessID string) (int64, error) {
	id, at, err := tx.LatestEntry(ctx, businessID, m.CustomerID, unfollowed)
	if err != nil || id == 0 || id == m.Written {
		return m.EntryID, err
	}
	if at.After(m.WrittenAt) || at.Equal(m.WrittenAt) && id > m.Written {
		return id, nil
	}
	return m.EntryID, nil
}

// announce records a customer's change of level from one index to
// another; entryID, when not 0, is the transaction that caused it.
func (t Tier) announce(ctx context.Context, tx Tx, customerID string, from, to int, reason string, at time.Time, entryID int64) error {
	level := func(i int) *TierLevelJSON {
		if i < 0 {
			return nil
		}
		l := NewTierLevelJSON(t.Levels[i])
		return &l
	}
	dir := "up"
	if to < from {
		dir = "down"
	}
	var cause *entryRefJSON
	if entryID != 0 {
		cause = &entryRefJSON{ID: entryID}
	}
	return record(ctx, tx, t.BusinessID, EventTierChanged, tierChangeJSON{Customer: idJSON{ID: customerID}, TierID: t.ID,
		TierLevel: level(to), PreviousTierLevel: level(from), Direction: dir, Reason: reason, Transaction: cause, ChangedAt: FormatTime(at)})
}

// KeepTiers announces, in tx and at now, the customers whose level their
// transactions moved (each once in moves): those whose level held now
// differs from the one last announced, naming the move's transaction, or
// the latest counted when it is newer than the page (TierMove.cause). It
// returns how many changed, or ErrTierRollPending while a period end of
// the program is due and not done.
func KeepTiers(ctx context.Context, tx Tx, businessID string, tierID int64, now time.Time, moves []TierMove) (int, error) {
	ids := make([]string, len(moves))
	for i, m := range moves {
		ids[i] = m.CustomerID
	}
	t, r, err := tx.LockTierRoll(ctx, businessID, tierID)
	if err != nil || !t.Enabled || len(ids) == 0 {
		return 0, err
	}
	if t.rollDue(r, now) {
		return 0, ErrTierRollPending
	}
	cur, prev := t.Periods(now)
	tot, err := tx.TierTotalsOf(ctx, businessID, ids, cur.Start, cur.End)
	if err != nil {
		return 0, err
	}
	before := map[string]TierTotals{}
	if t.BasePreviousPeriod == 1 && !prev.IsZero() {
		if before, err = tx.TierTotalsOf(ctx, businessID, ids, prev.Start, prev.End); err != nil {
			return 0, err
		}
	}
	held, err := tx.CustomerTiers(ctx, businessID, t.ID, ids)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, m := range moves {
		id := m.CustomerID
		ct := held[id]
		level, was := t.heldIn(cur, tot[id], before[id], ct), t.announced(ct)
		if level == was {
			continue
		}
		cause, err := m.cause(ctx, tx, businessID)
		if err != nil {
			return changed, err
		}
		if err := t.announce(ctx, tx, id, was, level, TierChangeActivity, now, cause); err != nil {
			return changed, err
		}
		ct.Known, ct.LevelID, ct.PreviousID, ct.ChangedAt = true, t.levelID(level), t.levelID(was), now
		if err := tx.PutCustomerTier(ctx, businessID, t.ID, id, ct); err != nil {
			return changed, err
		}
		changed++
	}
	return changed, nil
}
