package loyalty

import (
	"slices"
	"time"
)

// TierPeriod is the part [Start, End) of the ledger a tier program counts.
type TierPeriod struct {
	Start, End time.Time
}

// IsZero reports whether the period is empty (no previous period).
func (p TierPeriod) IsZero() bool { return p.Start.IsZero() && p.End.IsZero() }

// The ledger's first and last possible instants, for programs that never reset.
var (
	ledgerBegin = time.Date(1970, time.January, 1, 0, 0, 0, 0, time.UTC)
	ledgerEnd   = time.Date(9999, time.December, 31, 0, 0, 0, 0, time.UTC)
)

// Periods returns the period counted at now and the one before it. A
// program that never resets counts all of history and has no previous
// period (zero). Calendar periods begin at midnight on the first of a
// month in the business's time zone (TimeZone; UTC when unset). A rolling
// window ends just after now, so that what happened in now's second
// counts.
func (t Tier) Periods(now time.Time) (cur, prev TierPeriod) {
	loc := BusinessLocation(t.TimeZone)
	now = now.In(loc)
	n := max(t.ResetPeriodMonth, 1)
	switch t.ResetType {
	case TierResetCalendar:
		months := (now.Year()-1970)*12 + int(now.Month()) - 1
		first := months - mod(months, n)
		start := time.Date(1970, time.January+time.Month(first), 1, 0, 0, 0, 0, loc)
		return TierPeriod{start, start.AddDate(0, n, 0)}, TierPeriod{start.AddDate(0, -n, 0), start}
	case TierResetRolling:
		start := addMonths(now, -n)
		return TierPeriod{start, now.Add(time.Second)}, TierPeriod{addMonths(now, -2*n), start}
	}
	return TierPeriod{ledgerBegin, ledgerEnd}, TierPeriod{}
}

// mod is the remainder of a by b, never negative.
func mod(a, b int) int {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

// addMonths moves t by n months, keeping the day of the month where it
// exists and using the month's last day where it does not (March 31st less
// one month is February 28th or 29th, not March 3rd).
func addMonths(t time.Time, n int) time.Time {
	first := time.Date(t.Year(), t.Month()+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(t.Day(), last)-1)
}

// TierStatus is where a customer stands in a tier program.
type TierStatus struct {
	Relation int
	// StartDate and EndDate bound the counted period; both are zero for a
	// program that never resets. A rolling window ends now.
	StartDate, EndDate time.Time
	// Totals are the current period's spend, points and visits, each at
	// least zero (returns of earlier spend do not make them negative).
	Totals TierTotals
	Level  *TierLevel // the level held, nil when none is reached
	Next   *TierLevel // the next level up, nil at the top
	// LeftAmount, LeftPoints and LeftVisits are what the current period
	// still needs for Next; nil at the top, for a criterion Next does not
	// use, and for one the program does not count (tiers_sequence).
	LeftAmount             *Money
	LeftPoints, LeftVisits *int64
	// Percent is the progress towards Next, 0 to 100 with two decimals:
	// the best criterion under tiers_relation 0, the worst under 1. It is
	// 100 at the top.
	Percent float64
}

// TierProgress computes a customer's standing at now from the totals of
// the current and the previous period (see Tier.Periods). The level held is
// the highest one the current totals reach; with base_previous_period 1 a
// level reached in the previous period is kept through the current one
// (and see TierProgressKept for what a downgrade policy keeps).
// Redemptions never lower a level: tier points count only points earned.
// Only the criteria of the program's tiers_sequence (Tier.Criteria) reach
// a level or make progress; the totals report all three.
func TierProgress(now time.Time, t Tier, cur, prev TierTotals) TierStatus {
	return TierProgressKept(now, t, cur, prev, CustomerTier{})
}

// TierProgressKept is TierProgress for a customer of whom the tier keeper
// holds ct: a level its downgrade policy keeps through the current
// period counts too.
func TierProgressKept(now time.Time, t Tier, cur, prev TierTotals, ct CustomerTier) TierStatus {
	cur = cur.atLeastZero()
	st := TierStatus{Relation: t.TiersRelation, Totals: cur}
	p, _ := t.Periods(now)
	if t.ResetType != TierResetNever {
		st.StartDate, st.EndDate = p.Start, p.End
		if t.ResetType == TierResetRolling {
			st.EndDate = now.UTC()
		}
	}
	held := t.heldIn(p, cur, prev, ct)
	if held >= 0 {
		l := t.Levels[held]
		st.Level = &l
	}
	if held+1 >= len(t.Levels) {
		if len(t.Levels) > 0 {
			st.Percent = 100
		}
		return st
	}
	next := t.Levels[held+1]
	st.Next = &next
	counted := t.Criteria()
	best, worst := int64(-1), int64(-1)
	use := func(c string, total int64) *int64 {
		need := next.threshold(c)
		if need <= 0 || !slices.Contains(counted, c) {
			return nil
		}
		bp := int64(10000)
		if total < need {
			bp = total * 10000 / need
		}
		if best < 0 || bp > best {
			best = bp
		}
		if worst < 0 || bp < worst {
			worst = bp
		}
		left := max(need-total, 0)
		return &left
	}
	if left := use(CriterionSpend, int64(cur.Amount)); left != nil {
		m := Money(*left)
		st.LeftAmount = &m
	}
	st.LeftPoints = use(CriterionPoints, cur.Points)
	st.LeftVisits = use(CriterionVisits, cur.Visits)
	bp := best
	if t.TiersRelation == TierRelationAll {
		bp = worst
	}
	st.Percent = float64(max(bp, 0)) / 100
	return st
}

// reached returns the index of the highest level totals reach, or -1.
func (t Tier) reached(totals TierTotals) int {
	counted := t.Criteria()
	for i := len(t.Levels) - 1; i >= 0; i-- {
		if t.Levels[i].reachedBy(totals, t.TiersRelation, counted) {
			return i
		}
	}
	return -1
}

// total returns the totals' value on criterion c.
func (totals TierTotals) total(c string) int64 {
	switch c {
	case CriterionSpend:
		return int64(totals.Amount)
	case CriterionPoints:
		return totals.Points
	case CriterionVisits:
		return totals.Visits
	}
	return 0
}

// reachedBy reports whether totals reach the level on the counted
// criteria: under relation any, one threshold the level sets is met; under
// all, every one. A level that sets none of them is reached by everyone.
func (l TierLevel) reachedBy(totals TierTotals, relation int, counted []string) bool {
	set, met := 0, 0
	for _, c := range counted {
		if need := l.threshold(c); need > 0 {
			set++
			if totals.total(c) >= need {
				met++
			}
		}
	}
	if set == 0 {
		return true
	}
	if relation == TierRelationAll {
		return met == set
	}
	return met > 0
}
