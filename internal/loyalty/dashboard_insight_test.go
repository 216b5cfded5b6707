package loyalty

import "testing"

// TestPreviousPeriod: a period from the first of a month is compared with
// the same days of the month(s) before, any other with as many days
// before it.
func TestPreviousPeriod(t *testing.T) {
	for _, c := range []struct{ from, to, pf, pt string }{
		{"2026-10-01", "2026-10-31", "2026-09-01", "2026-09-30"},
		{"2026-03-01", "2026-03-31", "2026-02-01", "2026-02-28"},
		{"2026-10-01", "2026-10-12", "2026-09-01", "2026-09-12"},
		{"2026-03-01", "2026-03-30", "2026-02-01", "2026-02-28"},
		{"2026-01-01", "2026-03-31", "2025-10-01", "2025-12-31"},
		{"2026-01-01", "2026-01-31", "2025-12-01", "2025-12-31"},
		{"2026-10-05", "2026-10-11", "2026-09-28", "2026-10-04"},
		{"2026-10-02", "2026-10-31", "2026-09-02", "2026-10-01"},
		{"2026-03-29", "2026-03-29", "2026-03-28", "2026-03-28"},
	} {
		pf, pt, err := PreviousPeriod(c.from, c.to)
		if err != nil || pf != c.pf || pt != c.pt {
			t.Errorf("PreviousPeriod(%s, %s) = %s, %s, %v; want %s, %s", c.from, c.to, pf, pt, err, c.pf, c.pt)
		}
	}
}

// TestTierMix: members the keeper holds no row for hold the base level;
// a level id no longer in the program counts as no level.
func TestTierMix(t *testing.T) {
	tr := Tier{Levels: []TierLevel{{ID: 1, Name: "Bronze"}, {ID: 2, Name: "Silver", ReachSpend: 100}}}
	got := TierMix(tr, map[int64]int64{2: 3, 9: 1}, 10)
	want := []TierShare{{"Bronze", 6}, {"Silver", 3}, {"No level", 1}}
	if len(got) != len(want) {
		t.Fatalf("TierMix = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("TierMix = %v, want %v", got, want)
		}
	}
}

// TestChange: the change is in basis points of the previous value, and
// undefined without one.
func TestChange(t *testing.T) {
	if d, ok := Change(112, 100); !ok || d != 1200 {
		t.Errorf("Change(112, 100) = %d, %v", d, ok)
	}
	if d, ok := Change(50, 100); !ok || d != -5000 {
		t.Errorf("Change(50, 100) = %d, %v", d, ok)
	}
	if _, ok := Change(5, 0); ok {
		t.Error("Change from 0 is defined")
	}
	m := MemberActivity{Visitors: 4, Repeaters: 1, Spenders: 3, Spend: 1000}
	if m.RepeatRate() != 2500 || m.AverageSpend() != 333 {
		t.Errorf("repeat rate %d, average spend %d", m.RepeatRate(), m.AverageSpend())
	}
}
