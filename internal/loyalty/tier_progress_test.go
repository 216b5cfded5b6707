package loyalty

import (
	"testing"
	"time"
)

func (p TierPeriod) holds(t time.Time) bool { return !t.Before(p.Start) && t.Before(p.End) }

func TestTierPeriods(t *testing.T) {
	now := utcDate(2026, time.May, 17, 10, 30, 0)
	cases := []struct {
		name      string
		tier      Tier
		now       time.Time
		cur, prev TierPeriod
	}{
		{"never resets", Tier{ResetType: TierResetNever, ResetPeriodMonth: 12}, now,
			TierPeriod{ledgerBegin, ledgerEnd}, TierPeriod{}},
		{"calendar years", Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 12}, now,
			TierPeriod{utcDate(2026, 1, 1, 0, 0, 0), utcDate(2027, 1, 1, 0, 0, 0)}, TierPeriod{utcDate(2025, 1, 1, 0, 0, 0), utcDate(2026, 1, 1, 0, 0, 0)}},
		{"quarters", Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 3}, now,
			TierPeriod{utcDate(2026, 4, 1, 0, 0, 0), utcDate(2026, 7, 1, 0, 0, 0)}, TierPeriod{utcDate(2026, 1, 1, 0, 0, 0), utcDate(2026, 4, 1, 0, 0, 0)}},
		{"months, across a year", Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 1}, utcDate(2026, 1, 31, 23, 59, 59),
			TierPeriod{utcDate(2026, 1, 1, 0, 0, 0), utcDate(2026, 2, 1, 0, 0, 0)}, TierPeriod{utcDate(2025, 12, 1, 0, 0, 0), utcDate(2026, 1, 1, 0, 0, 0)}},
		{"five months from 1970", Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 5}, now,
			// (2026-1970)*12+4 = 676 months; 675 = 135*5 starts April 2026.
			TierPeriod{utcDate(2026, 4, 1, 0, 0, 0), utcDate(2026, 9, 1, 0, 0, 0)}, TierPeriod{utcDate(2025, 11, 1, 0, 0, 0), utcDate(2026, 4, 1, 0, 0, 0)}},
		{"two years", Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 24}, now,
			TierPeriod{utcDate(2026, 1, 1, 0, 0, 0), utcDate(2028, 1, 1, 0, 0, 0)}, TierPeriod{utcDate(2024, 1, 1, 0, 0, 0), utcDate(2026, 1, 1, 0, 0, 0)}},
		{"at the reset instant", Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 12}, utcDate(2026, 1, 1, 0, 0, 0),
			TierPeriod{utcDate(2026, 1, 1, 0, 0, 0), utcDate(2027, 1, 1, 0, 0, 0)}, TierPeriod{utcDate(2025, 1, 1, 0, 0, 0), utcDate(2026, 1, 1, 0, 0, 0)}},
		{"rolling month at a month's end", Tier{ResetType: TierResetRolling, ResetPeriodMonth: 1}, utcDate(2026, 3, 31, 12, 0, 0),
			TierPeriod{utcDate(2026, 2, 28, 12, 0, 0), utcDate(2026, 3, 31, 12, 0, 1)}, TierPeriod{utcDate(2026, 1, 31, 12, 0, 0), utcDate(2026, 2, 28, 12, 0, 0)}},
		{"rolling year", Tier{ResetType: TierResetRolling, ResetPeriodMonth: 12}, now,
			TierPeriod{utcDate(2025, 5, 17, 10, 30, 0), utcDate(2026, 5, 17, 10, 30, 1)}, TierPeriod{utcDate(2024, 5, 17, 10, 30, 0), utcDate(2025, 5, 17, 10, 30, 0)}},
		{"rolling from a leap day", Tier{ResetType: TierResetRolling, ResetPeriodMonth: 12}, utcDate(2028, 2, 29, 0, 0, 0),
			TierPeriod{utcDate(2027, 2, 28, 0, 0, 0), utcDate(2028, 2, 29, 0, 0, 1)}, TierPeriod{utcDate(2026, 2, 28, 0, 0, 0), utcDate(2027, 2, 28, 0, 0, 0)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cur, prev := c.tier.Periods(c.now)
			if !cur.Start.Equal(c.cur.Start) || !cur.End.Equal(c.cur.End) {
				t.Errorf("current %v – %v, want %v – %v", cur.Start, cur.End, c.cur.Start, c.cur.End)
			}
			if !prev.Start.Equal(c.prev.Start) || !prev.End.Equal(c.prev.End) {
				t.Errorf("previous %v – %v, want %v – %v", prev.Start, prev.End, c.prev.Start, c.prev.End)
			}
			if !cur.holds(c.now) {
				t.Errorf("the current period does not hold now")
			}
		})
	}
	// Periods are computed in UTC whatever the zone of now.
	est := time.FixedZone("EST", -5*3600)
	cur, _ := Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 12}.Periods(time.Date(2025, 12, 31, 20, 0, 0, 0, est))
	if !cur.Start.Equal(utcDate(2026, 1, 1, 0, 0, 0)) {
		t.Errorf("20:00 EST on Dec 31 is 2026 in UTC; period starts %v", cur.Start)
	}
}

// TestTierPeriodBoundary: an entry one second before a reset counts in the
// previous period, one second after (and at the instant) in the new one.
func TestTierPeriodBoundary(t *testing.T) {
	for _, tr := range []Tier{{ResetType: TierResetCalendar, ResetPeriodMonth: 12}, {ResetType: TierResetCalendar, ResetPeriodMonth: 1}} {
		reset := utcDate(2026, 1, 1, 0, 0, 0)
		cur, prev := tr.Periods(reset.Add(time.Hour))
		if !prev.holds(reset.Add(-time.Second)) || cur.holds(reset.Add(-time.Second)) {
			t.Errorf("%d months: reset-1s is not in the previous period only", tr.ResetPeriodMonth)
		}
		if !cur.holds(reset) || !cur.holds(reset.Add(time.Second)) || prev.holds(reset) {
			t.Errorf("%d months: reset and reset+1s are not in the new period only", tr.ResetPeriodMonth)
		}
		if cur.Start != prev.End {
			t.Errorf("%d months: the periods leave a gap or overlap", tr.ResetPeriodMonth)
		}
	}
	// A rolling window: what happened in now's second counts.
	now := utcDate(2026, 6, 1, 8, 0, 0)
	cur, prev := Tier{ResetType: TierResetRolling, ResetPeriodMonth: 1}.Periods(now)
	if !cur.holds(now) || !cur.holds(utcDate(2026, 5, 1, 8, 0, 0)) || cur.holds(utcDate(2026, 5, 1, 7, 59, 59)) || !prev.holds(utcDate(2026, 5, 1, 7, 59, 59)) {
		t.Errorf("rolling window %v – %v (previous %v – %v)", cur.Start, cur.End, prev.Start, prev.End)
	}
}

// TestTierPeriodsInTimeZone: calendar periods begin at midnight on the
// first of the month in the business's time zone, not in UTC.
func TestTierPeriodsInTimeZone(t *testing.T) {
	montreal := Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 1, TimeZone: "America/Montreal"}
	// 2031-02-01 03:00 UTC is still January 31st, 22:00, in Montreal.
	cur, prev := montreal.Periods(utcDate(2031, 2, 1, 3, 0, 0))
	if want := utcDate(2031, 1, 1, 5, 0, 0); !cur.Start.Equal(want) || !cur.End.Equal(utcDate(2031, 2, 1, 5, 0, 0)) {
		t.Errorf("Montreal: period %v – %v, want January from %v", cur.Start.UTC(), cur.End.UTC(), want)
	}
	if !prev.End.Equal(cur.Start) || !prev.Start.Equal(utcDate(2030, 12, 1, 5, 0, 0)) {
		t.Errorf("Montreal: previous period %v – %v", prev.Start.UTC(), prev.End.UTC())
	}
	// A summer month begins at 04:00 UTC (daylight time).
	if cur, _ := montreal.Periods(utcDate(2031, 7, 15, 12, 0, 0)); !cur.Start.Equal(utcDate(2031, 7, 1, 4, 0, 0)) {
		t.Errorf("Montreal in July: period from %v", cur.Start.UTC())
	}
	// Kolkata is ahead of UTC: its March begins on February 28th, 18:30
	// UTC, and its first quarter of 2031 on December 31st, 18:30 UTC.
	kolkata := Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 1, TimeZone: "Asia/Kolkata"}
	if cur, _ := kolkata.Periods(utcDate(2031, 2, 28, 19, 0, 0)); !cur.Start.Equal(utcDate(2031, 2, 28, 18, 30, 0)) {
		t.Errorf("Kolkata: month from %v, want 2031-02-28 18:30 UTC", cur.Start.UTC())
	}
	kolkata.ResetPeriodMonth = 3
	if cur, _ := kolkata.Periods(utcDate(2031, 2, 28, 19, 0, 0)); !cur.Start.Equal(utcDate(2030, 12, 31, 18, 30, 0)) {
		t.Errorf("Kolkata: quarter from %v, want 2030-12-31 18:30 UTC", cur.Start.UTC())
	}
}

func TestAddMonths(t *testing.T) {
	for _, c := range []struct {
		from time.Time
		n    int
		want time.Time
	}{
		{utcDate(2026, 3, 31, 1, 2, 3), -1, utcDate(2026, 2, 28, 1, 2, 3)},
		{utcDate(2024, 3, 31, 0, 0, 0), -1, utcDate(2024, 2, 29, 0, 0, 0)},
		{utcDate(2026, 1, 31, 0, 0, 0), 1, utcDate(2026, 2, 28, 0, 0, 0)},
		{utcDate(2026, 5, 15, 0, 0, 0), -17, utcDate(2024, 12, 15, 0, 0, 0)},
		{utcDate(2026, 5, 15, 0, 0, 0), 0, utcDate(2026, 5, 15, 0, 0, 0)},
	} {
		if got := addMonths(c.from, c.n); !got.Equal(c.want) {
			t.Errorf("addMonths(%v, %d) = %v, want %v", c.from, c.n, got, c.want)
		}
	}
}

func moneyPtr(m Money) *Money { return &m }
func int64Ptr(n int64) *int64 { return &n }

func eqMoneyPtr(a, b *Money) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func eqInt64Ptr(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func levelName(l *TierLevel) string {
	if l == nil {
		return "<none>"
	}
	return l.Name
}

func TestTierProgress(t *testing.T) {
	now := utcDate(2026, 5, 17, 10, 30, 0)
	// Member for everyone; Silver at 100.00 spent or 5 visits; Gold at
	// 500.00 and 20 visits; Platinum at 1000.00 spent or 1000 points.
	ls := tierLevelsOf("Member", 0, 0, 0, "Silver", 10000, 5, 0, "Gold", 50000, 20, 0, "Platinum", 100000, 0, 1000)
	anyOf := Tier{TiersRelation: TierRelationAny, ResetType: TierResetCalendar, ResetPeriodMonth: 12, Levels: ls}
	allOf := anyOf
	allOf.TiersRelation = TierRelationAll
	keep := allOf
	keep.BasePreviousPeriod = 1
	noBase := Tier{TiersRelation: TierRelationAny, Levels: ls[1:]}
	cases := []struct {
		name        string
		tier        Tier
		cur, prev   TierTotals
		level, next string
		left        [3]any // amount, points, visits: *Money / *int64 or nil
		percent     float64
	}{
		{"any: visits reach Silver", anyOf, TierTotals{Amount: 5000, Visits: 5}, TierTotals{}, "Silver", "Gold",
			[3]any{moneyPtr(45000), nil, int64Ptr(15)}, 25},
		{"all: Silver needs both", allOf, TierTotals{Amount: 5000, Visits: 5}, TierTotals{}, "Member", "Silver",
			[3]any{moneyPtr(5000), nil, int64Ptr(0)}, 50},
		{"all: both met", allOf, TierTotals{Amount: 10000, Visits: 5}, TierTotals{}, "Silver", "Gold",
			[3]any{moneyPtr(40000), nil, int64Ptr(15)}, 20},
		{"any: highest reached, skipping levels", anyOf, TierTotals{Points: 1200}, TierTotals{}, "Platinum", "",
			[3]any{nil, nil, nil}, 100},
		{"no base level, nothing done", noBase, TierTotals{}, TierTotals{}, "", "Silver",
			[3]any{moneyPtr(10000), nil, int64Ptr(5)}, 0},
		{"two decimals, rounded down", noBase, TierTotals{Amount: 3333}, TierTotals{}, "", "Silver",
			[3]any{moneyPtr(6667), nil, int64Ptr(5)}, 33.33},
		{"returns never make totals negative", allOf, TierTotals{Amount: -2000, Points: -5, Visits: -1}, TierTotals{}, "Member", "Silver",
			[3]any{moneyPtr(10000), nil, int64Ptr(5)}, 0},
		{"previous period ignored without base_previous_period", allOf, TierTotals{}, TierTotals{Amount: 60000, Visits: 25}, "Member", "Silver",
			[3]any{moneyPtr(10000), nil, int64Ptr(5)}, 0},
		{"previous period's level kept", keep, TierTotals{Amount: 1000, Visits: 1}, TierTotals{Amount: 60000, Visits: 25}, "Gold", "Platinum",
			[3]any{moneyPtr(99000), int64Ptr(1000), nil}, 0},
		{"current period beats the kept level", keep, TierTotals{Amount: 100000, Points: 1000}, TierTotals{Amount: 10000, Visits: 5}, "Platinum", "",
			[3]any{nil, nil, nil}, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := TierProgress(now, c.tier, c.cur, c.prev)
			if levelName(st.Level) != orNone(c.level) || levelName(st.Next) != orNone(c.next) {
				t.Errorf("level %s, next %s; want %s, %s", levelName(st.Level), levelName(st.Next), orNone(c.level), orNone(c.next))
			}
			la, _ := c.left[0].(*Money)
			lp, _ := c.left[1].(*int64)
			lv, _ := c.left[2].(*int64)
			if !eqMoneyPtr(st.LeftAmount, la) || !eqInt64Ptr(st.LeftPoints, lp) || !eqInt64Ptr(st.LeftVisits, lv) {
				t.Errorf("left %v %v %v, want %v %v %v", st.LeftAmount, st.LeftPoints, st.LeftVisits, la, lp, lv)
			}
			if st.Percent != c.percent {
				t.Errorf("progress %v, want %v", st.Percent, c.percent)
			}
			if st.Totals.Amount < 0 || st.Totals.Points < 0 || st.Totals.Visits < 0 || st.Relation != c.tier.TiersRelation {
				t.Errorf("totals %+v, relation %d", st.Totals, st.Relation)
			}
		})
	}
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func TestTierProgressDates(t *testing.T) {
	now := utcDate(2026, 5, 17, 10, 30, 0)
	ls := tierLevelsOf("Silver", 10000, 0, 0)
	st := TierProgress(now, Tier{ResetType: TierResetNever, BasePreviousPeriod: 1, Levels: ls}, TierTotals{}, TierTotals{Amount: 99999})
	if !st.StartDate.IsZero() || !st.EndDate.IsZero() || st.Level != nil {
		t.Errorf("never resets: dates %v – %v, level %v; want none (and no previous period)", st.StartDate, st.EndDate, st.Level)
	}
	st = TierProgress(now, Tier{ResetType: TierResetCalendar, ResetPeriodMonth: 6, Levels: ls}, TierTotals{}, TierTotals{})
	if !st.StartDate.Equal(utcDate(2026, 1, 1, 0, 0, 0)) || !st.EndDate.Equal(utcDate(2026, 7, 1, 0, 0, 0)) {
		t.Errorf("half years: %v – %v", st.StartDate, st.EndDate)
	}
	st = TierProgress(now, Tier{ResetType: TierResetRolling, ResetPeriodMonth: 2, Levels: ls}, TierTotals{}, TierTotals{})
	if !st.StartDate.Equal(utcDate(2026, 3, 17, 10, 30, 0)) || !st.EndDate.Equal(now) {
		t.Errorf("rolling: %v – %v, want two months ago – now", st.StartDate, st.EndDate)
	}
	st = TierProgress(now, Tier{}, TierTotals{Amount: 5}, TierTotals{})
	if st.Level != nil || st.Next != nil || st.Percent != 0 || st.LeftAmount != nil {
		t.Errorf("a program without levels: %+v", st)
	}
}
