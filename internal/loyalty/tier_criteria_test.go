package loyalty

import (
	"slices"
	"testing"
	"time"
)

// TestTiersSequenceInput: tiers_sequence takes the reference codes as
// strings or numbers, is validated, and decides which thresholds the
// levels are checked on.
func TestTiersSequenceInput(t *testing.T) {
	// Points only: equal spend and visits on every level are not compared.
	pointsOnly := tierLevelInputs(tierLevelsOf("VIP", 500, 2, 10, "Platinum", 500, 2, 20, "Gold", 500, 2, 30))
	tr := newTier("b1")
	if err := (TierInput{TiersSequence: Some([]any{"2"}), TierLevels: Some(pointsOnly)}).apply(&tr, nil, true); err != nil {
		t.Fatalf("points-only program with equal spend and visits: %v", err)
	}
	if !slices.Equal(tr.Sequence, []string{"2"}) || tr.Levels[2].ReachSpend != 500 {
		t.Errorf("applied %+v", tr)
	}
	// Without tiers_sequence, every criterion a level sets is checked.
	tr = newTier("b1")
	wantTierFields(t, TierInput{TierLevels: Some(pointsOnly)}.apply(&tr, nil, true),
		"tier_levels.1.reach_spend", "tier_levels.2.reach_spend", "tier_levels.1.reach_visits", "tier_levels.2.reach_visits")
	// Derived when absent: the criteria the levels set, in code order.
	tr = newTier("b1")
	if err := (TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 0, 3, 0, "B", 100, 4, 0)))}).apply(&tr, nil, true); err != nil ||
		!slices.Equal(tr.Sequence, []string{"1", "3"}) {
		t.Errorf("derived sequence %v (%v), want [1 3]", tr.Sequence, err)
	}
	// Numbers and order are kept as sent.
	tr = newTier("b1")
	if err := (TierInput{TiersSequence: Some([]any{float64(3), "1"}), TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 100, 1, 0)))}).apply(&tr, nil, true); err != nil ||
		!slices.Equal(tr.Sequence, []string{"3", "1"}) {
		t.Errorf("sequence %v (%v), want [3 1]", tr.Sequence, err)
	}
	one := Some(tierLevelInputs(tierLevelsOf("A", 100, 1, 1)))
	for _, c := range []struct {
		name   string
		seq    Opt[[]any]
		fields []string
	}{
		{"level names", Some([]any{"Silver"}), []string{"tiers_sequence.0"}},
		{"unknown code", Some([]any{"4"}), []string{"tiers_sequence.0"}},
		{"fraction", Some([]any{1.5}), []string{"tiers_sequence.0"}},
		{"twice", Some([]any{"1", float64(1)}), []string{"tiers_sequence.1"}},
		{"empty", Some([]any{}), []string{"tiers_sequence"}},
		{"too long", Some([]any{"1", "2", "3", "1"}), []string{"tiers_sequence"}},
		{"null", Opt[[]any]{Set: true, Null: true}, []string{"tiers_sequence"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTier("b1")
			wantTierFields(t, TierInput{TiersSequence: c.seq, TierLevels: one}.apply(&tr, nil, true), c.fields...)
		})
	}
	// Another field's error does not stop the levels being checked on the
	// sequence.
	tr = newTier("b1")
	wantTierFields(t, TierInput{TiersRelation: Some(7), TiersSequence: Some([]any{"1"}),
		TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 500, 0, 0, "B", 400, 0, 0)))}.apply(&tr, nil, true),
		"tiers_relation", "tier_levels.1.reach_spend")
	// A second level must set a threshold of the sequence; the field named
	// is the sequence's first.
	tr = newTier("b1")
	wantTierFields(t, TierInput{TiersSequence: Some([]any{"3", "2"}),
		TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 0, 0, 0, "B", 900, 0, 0)))}.apply(&tr, nil, true), "tier_levels.1.reach_visits")
}

// TestTiersSequenceUpdate: an update that changes only the sequence checks
// the stored levels on it; one that replaces the levels without it derives
// it again; one with neither keeps it.
func TestTiersSequenceUpdate(t *testing.T) {
	stored := func() Tier {
		return Tier{ID: 1, BusinessID: "b1", Sequence: []string{"2"}, Enabled: true,
			Levels: tierLevelsOf("VIP", 500, 0, 10, "Gold", 500, 0, 20)}
	}
	tr := stored()
	if err := (TierInput{Enabled: Some(false)}).apply(&tr, nil, false); err != nil || !slices.Equal(tr.Sequence, []string{"2"}) {
		t.Errorf("partial update: sequence %v (%v), want [2] kept", tr.Sequence, err)
	}
	tr = stored()
	wantTierFields(t, TierInput{TiersSequence: Some([]any{"1", "2"})}.apply(&tr, nil, false), "tiers_sequence")
	tr = stored()
	if err := (TierInput{TiersSequence: Some([]any{"2"})}).apply(&tr, nil, false); err != nil {
		t.Errorf("the same sequence again: %v", err)
	}
	tr = stored()
	if err := (TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 100, 0, 0, "B", 200, 5, 0)))}).apply(&tr, map[int64]bool{}, false); err != nil ||
		!slices.Equal(tr.Sequence, []string{"1", "3"}) {
		t.Errorf("levels without a sequence: %v (%v), want [1 3]", tr.Sequence, err)
	}
}

// TestTierProgressCountsTheSequence: only the criteria of tiers_sequence
// reach a level or leave something to do; the totals still report all.
func TestTierProgressCountsTheSequence(t *testing.T) {
	now := time.Date(2026, 5, 17, 10, 0, 0, 0, time.UTC)
	points := Tier{Sequence: []string{CriterionPoints}, Levels: tierLevelsOf("VIP", 100, 1, 10, "Gold", 100, 1, 20)}
	st := TierProgress(now, points, TierTotals{Amount: 5000, Visits: 9, Points: 5}, TierTotals{})
	if st.Level != nil || st.Next == nil || st.Next.Name != "VIP" || st.LeftAmount != nil || st.LeftVisits != nil ||
		st.LeftPoints == nil || *st.LeftPoints != 5 || st.Percent != 50 || st.Totals.Amount != 5000 || st.Totals.Visits != 9 {
		t.Errorf("points-only program, spend and visits far past the levels: %+v", st)
	}
	st = TierProgress(now, points, TierTotals{Points: 20}, TierTotals{})
	if st.Level == nil || st.Level.Name != "Gold" || st.Percent != 100 {
		t.Errorf("20 points: %+v, want Gold", st)
	}
	// Under "all", a criterion outside the sequence is not required.
	all := Tier{Sequence: []string{CriterionSpend, CriterionVisits}, TiersRelation: TierRelationAll,
		Levels: tierLevelsOf("Silver", 1000, 2, 999)}
	if st := TierProgress(now, all, TierTotals{Amount: 1000, Visits: 2}, TierTotals{}); st.Level == nil || st.Level.Name != "Silver" {
		t.Errorf("spend and visits met, points not counted: %+v, want Silver", st)
	}
}
