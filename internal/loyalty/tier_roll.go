package loyalty

import (
	"context"
	"time"
)

// A calendar tier program's period ends: the points scheduler (and a
// sandbox business's clock) takes every customer into the new period,
// keeping what the downgrade policy keeps and announcing each level it
// lowers (see tier_keep.go for what the keeper holds).

// rollDue reports whether a calendar program has a period end due at now.
func (t Tier) rollDue(r TierRoll, now time.Time) bool {
	if t.ResetType != TierResetCalendar || !t.Enabled {
		return false
	}
	cur, _ := t.Periods(now)
	return r.RolledTo.Before(cur.Start)
}

// RollTiers takes the customers of a business ("" for every live
// business whose period end may be due) into each calendar period of
// its enabled tier program that began by now, in order, batch customers
// to a transaction. It returns how many levels it announced.
func RollTiers(ctx context.Context, st Store, businessID string, now time.Time, batch int) (int, error) {
	ids := []string{businessID}
	if businessID == "" {
		// A period is a month at least: a program taken into one that
		// began within the last 27 days has no end due.
		var err error
		if ids, err = st.TiersToRoll(ctx, now.AddDate(0, 0, -27), 1000); err != nil {
			return 0, err
		}
	}
	total := 0
	for _, id := range ids {
		tiers, err := st.Tiers(ctx, id)
		if err != nil {
			return total, err
		}
		t, ok := EnabledTier(tiers)
		if !ok || t.ResetType != TierResetCalendar {
			continue
		}
		for more := true; more; {
			var n int
			n, more, err = rollBatch(ctx, st, id, t.ID, now, orDefault(batch, 500))
			total += n
			if err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// rollBatch takes the next batch of customers into the period after the
// one the program stands in, and reports whether more is due.
func rollBatch(ctx context.Context, st Store, businessID string, tierID int64, now time.Time, batch int) (changed int, more bool, err error) {
	err = st.WithTx(ctx, func(tx Tx) error {
		changed, more = 0, false
		t, r, err := tx.LockTierRoll(ctx, businessID, tierID)
		if err != nil || !t.rollDue(r, now) {
			return err
		}
		if r.RolledTo.IsZero() {
			// Never taken into a period (a program older than period
			// ends): it starts from the current one.
			cur, _ := t.Periods(now)
			return tx.SetTierRoll(ctx, t.ID, TierRoll{RolledTo: cur.Start})
		}
		ended, before := t.Periods(r.RolledTo)
		ids, err := tx.CustomerIDsAfter(ctx, businessID, r.After, batch)
		if err != nil {
			return err
		}
		if changed, err = t.rollCustomers(ctx, tx, ended, before, ids); err != nil {
			return err
		}
		if len(ids) == batch {
			r.After, more = ids[len(ids)-1], true
		} else {
			r = TierRoll{RolledTo: ended.End}
			more = t.rollDue(r, now)
		}
		return tx.SetTierRoll(ctx, t.ID, r)
	})
	return changed, more, err
}

// rollCustomers takes customers from the period ended into the next: the
// level each held when it ended (announced first if the keeper had not
// yet), what the downgrade policy keeps of it, and the level each holds
// as the next begins, announced when lower.
func (t Tier) rollCustomers(ctx context.Context, tx Tx, ended, before TierPeriod, ids []string) (int, error) {
	tot, err := tx.TierTotalsOf(ctx, t.BusinessID, ids, ended.Start, ended.End)
	if err != nil {
		return 0, err
	}
	prev := map[string]TierTotals{}
	if t.BasePreviousPeriod == 1 {
		if prev, err = tx.TierTotalsOf(ctx, t.BusinessID, ids, before.Start, before.End); err != nil {
			return 0, err
		}
	}
	held, err := tx.CustomerTiers(ctx, t.BusinessID, t.ID, ids)
	if err != nil {
		return 0, err
	}
	next, base, changed := ended.End, t.base(), 0
	for _, id := range ids {
		ct := held[id]
		atEnd, was := t.heldIn(ended, tot[id], prev[id], ct), t.announced(ct)
		floor := t.kept(atEnd)
		if floor <= base {
			floor = -1
		}
		atStart := max(base, floor)
		if t.BasePreviousPeriod == 1 {
			atStart = max(atStart, t.reached(tot[id].atLeastZero()))
		}
		level, from, at := was, ct.PreviousID, ct.ChangedAt
		for _, step := range []struct {
			to     int
			reason string
		}{{atEnd, TierChangeActivity}, {atStart, TierChangePeriodEnd}} {
			if step.to == level {
				continue
			}
			if err := t.announce(ctx, tx, id, level, step.to, step.reason, next, 0); err != nil {
				return changed, err
			}
			level, from, at = step.to, t.levelID(level), next
			changed++
		}
		after := CustomerTier{Known: true, LevelID: t.levelID(level), FloorID: t.levelID(floor), PreviousID: from, ChangedAt: at}
		if floor >= 0 {
			after.FloorFrom = next
		}
		if after.same(ct) || (!ct.Known && level == base && floor < 0) {
			continue
		}
		if err := tx.PutCustomerTier(ctx, t.BusinessID, t.ID, id, after); err != nil {
			return changed, err
		}
	}
	return changed, nil
}
