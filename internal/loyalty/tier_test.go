package loyalty

import (
	"strings"
	"testing"
	"time"
)

func utcDate(y int, m time.Month, d, h, min, s int) time.Time {
	return time.Date(y, m, d, h, min, s, 0, time.UTC)
}

// levels builds a program's levels from (name, spend in cents, visits, points).
func tierLevelsOf(spec ...any) []TierLevel {
	var out []TierLevel
	for i := 0; i+3 < len(spec); i += 4 {
		out = append(out, TierLevel{ID: int64(len(out) + 1), Name: spec[i].(string), ReachSpend: Money(spec[i+1].(int)),
			ReachVisits: int64(spec[i+2].(int)), ReachPoints: int64(spec[i+3].(int))})
	}
	return out
}

func tierLevelInputs(ls []TierLevel) []TierLevelInput {
	out := make([]TierLevelInput, len(ls))
	for i, l := range ls {
		out[i] = TierLevelInput{Name: Some(l.Name), ReachSpend: Some(l.ReachSpend), ReachVisits: Some(l.ReachVisits), ReachPoints: Some(l.ReachPoints)}
	}
	return out
}

// wantFields fails unless err is EInvalid naming exactly fields.
func wantTierFields(t *testing.T, err error, fields ...string) {
	t.Helper()
	e, ok := err.(*Error)
	if !ok || e.Code != EInvalid {
		t.Fatalf("error %v, want EInvalid naming %v", err, fields)
	}
	for _, f := range fields {
		if len(e.Fields[f]) == 0 {
			t.Errorf("error %v does not name %q", err, f)
		}
	}
	if len(e.Fields) != len(fields) {
		t.Errorf("error names %v, want exactly %v", e.Fields, fields)
	}
}

func TestTierInputCreate(t *testing.T) {
	good := tierLevelInputs(tierLevelsOf("Member", 0, 0, 0, "Silver", 10000, 5, 0, "Gold", 50000, 20, 0))
	tr := newTier("b1")
	in := TierInput{TiersRelation: Some(1), ResetType: Some(1), ResetPeriodMonth: Some(3), BasePreviousPeriod: Some(1),
		Enabled: Some(false), TierLevels: Some(good)}
	if err := in.apply(&tr, nil, true); err != nil {
		t.Fatal(err)
	}
	if tr.TiersRelation != 1 || tr.ResetType != 1 || tr.ResetPeriodMonth != 3 || tr.BasePreviousPeriod != 1 || tr.Enabled ||
		len(tr.Levels) != 3 || tr.Levels[2].Name != "Gold" || tr.Levels[2].ReachSpend != 50000 || tr.Levels[1].ReachVisits != 5 {
		t.Errorf("applied %+v", tr)
	}
	if got := strings.Join(tr.LevelNames(), ","); got != "Member,Silver,Gold" {
		t.Errorf("sequence %q", got)
	}

	tr = newTier("b1")
	if err := (TierInput{TierLevels: Some(good[1:])}).apply(&tr, nil, true); err != nil {
		t.Fatal(err)
	}
	if tr.TiersRelation != 0 || tr.ResetType != 0 || tr.ResetPeriodMonth != 12 || tr.BasePreviousPeriod != 0 || !tr.Enabled {
		t.Errorf("defaults %+v", tr)
	}
	// An id on create means nothing: the levels are new.
	withID := tierLevelInputs(tierLevelsOf("Solo", 100, 0, 0))
	withID[0].ID = Some[int64](77)
	tr = newTier("b1")
	if err := (TierInput{TierLevels: Some(withID)}).apply(&tr, nil, true); err != nil || tr.Levels[0].ID != 0 {
		t.Errorf("id on create: %v, %+v", err, tr.Levels)
	}
}

func TestTierInputInvalid(t *testing.T) {
	good := tierLevelInputs(tierLevelsOf("Silver", 10000, 0, 0))
	cases := []struct {
		name   string
		in     TierInput
		fields []string
	}{
		{"no levels", TierInput{}, []string{"tier_levels"}},
		{"null levels", TierInput{TierLevels: Opt[[]TierLevelInput]{Set: true, Null: true}}, []string{"tier_levels"}},
		{"empty levels", TierInput{TierLevels: Some([]TierLevelInput{})}, []string{"tier_levels"}},
		{"too many levels", TierInput{TierLevels: Some(make([]TierLevelInput, MaxTierLevels+1))}, []string{"tier_levels"}},
		{"relation", TierInput{TiersRelation: Some(2), TierLevels: Some(good)}, []string{"tiers_relation"}},
		{"reset type", TierInput{ResetType: Some(3), TierLevels: Some(good)}, []string{"reset_type"}},
		{"negative reset type", TierInput{ResetType: Some(-1), TierLevels: Some(good)}, []string{"reset_type"}},
		{"period zero", TierInput{ResetPeriodMonth: Some(0), TierLevels: Some(good)}, []string{"reset_period_month"}},
		{"period too long", TierInput{ResetPeriodMonth: Some(MaxResetPeriodMonths + 1), TierLevels: Some(good)}, []string{"reset_period_month"}},
		{"base previous", TierInput{BasePreviousPeriod: Some(2), TierLevels: Some(good)}, []string{"base_previous_period"}},
		{"null relation", TierInput{TiersRelation: Opt[int]{Set: true, Null: true}, TierLevels: Some(good)}, []string{"tiers_relation"}},
		{"null enabled", TierInput{Enabled: Opt[bool]{Set: true, Null: true}, TierLevels: Some(good)}, []string{"enabled"}},
		{"no name", TierInput{TierLevels: Some([]TierLevelInput{{ReachSpend: Some[Money](100)}})}, []string{"tier_levels.0.name"}},
		{"blank name", TierInput{TierLevels: Some([]TierLevelInput{{Name: Some("  "), ReachSpend: Some[Money](100)}})}, []string{"tier_levels.0.name"}},
		{"long name", TierInput{TierLevels: Some([]TierLevelInput{{Name: Some(strings.Repeat("n", 101)), ReachSpend: Some[Money](100)}})}, []string{"tier_levels.0.name"}},
		{"same name", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("Gold", 100, 0, 0, "gold", 200, 0, 0)))}, []string{"tier_levels.1.name"}},
		{"negative spend", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", -1, 0, 0)))}, []string{"tier_levels.0.reach_spend"}},
		{"negative visits", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 0, -1, 0)))}, []string{"tier_levels.0.reach_visits"}},
		{"huge points", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 0, 0, maxPoints+1)))}, []string{"tier_levels.0.reach_points"}},
		{"null spend", TierInput{TierLevels: Some([]TierLevelInput{{Name: Some("A"), ReachSpend: Opt[Money]{Set: true, Null: true}}})}, []string{"tier_levels.0.reach_spend"}},
		{"null visits", TierInput{TierLevels: Some([]TierLevelInput{{Name: Some("A"), ReachVisits: Opt[int64]{Set: true, Null: true}}})}, []string{"tier_levels.0.reach_visits"}},
		{"spend not above", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 100, 0, 0, "B", 100, 0, 0)))}, []string{"tier_levels.1.reach_spend"}},
		{"spend down", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 200, 0, 0, "B", 100, 0, 0)))}, []string{"tier_levels.1.reach_spend"}},
		{"visits down over a gap", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 0, 5, 0, "B", 100, 0, 0, "C", 200, 5, 0)))}, []string{"tier_levels.2.reach_visits"}},
		{"points down", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 0, 0, 50, "B", 0, 0, 40)))}, []string{"tier_levels.1.reach_points"}},
		{"second level without threshold", TierInput{TierLevels: Some(tierLevelInputs(tierLevelsOf("A", 0, 0, 0, "B", 0, 0, 0)))}, []string{"tier_levels.1.reach_spend"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newTier("b1")
			wantTierFields(t, c.in.apply(&tr, nil, true), c.fields...)
		})
	}
	// Several problems are reported together.
	tr := newTier("b1")
	wantTierFields(t, TierInput{TiersRelation: Some(5), ResetType: Some(9), TierLevels: Some(tierLevelInputs(tierLevelsOf("", 100, 0, 0)))}.apply(&tr, nil, true),
		"tiers_relation", "reset_type", "tier_levels.0.name")
}

func TestTierInputUpdate(t *testing.T) {
	tr := Tier{ID: 1, BusinessID: "b1", TiersRelation: 1, ResetType: 2, ResetPeriodMonth: 6, BasePreviousPeriod: 1, Enabled: true,
		Levels: tierLevelsOf("Silver", 100, 0, 0, "Gold", 200, 0, 0)}
	existing := map[int64]bool{1: true, 2: true}
	// Fields not sent keep their values; levels are untouched.
	if err := (TierInput{Enabled: Some(false)}).apply(&tr, existing, false); err != nil {
		t.Fatal(err)
	}
	if tr.Enabled || tr.TiersRelation != 1 || tr.ResetType != 2 || tr.ResetPeriodMonth != 6 || tr.BasePreviousPeriod != 1 || len(tr.Levels) != 2 {
		t.Errorf("partial update gave %+v", tr)
	}
	// A level keeps its id when it sends it; others are new.
	in := tierLevelInputs(tierLevelsOf("Bronze", 50, 0, 0, "Gold", 300, 0, 0))
	in[1].ID = Some[int64](2)
	if err := (TierInput{TierLevels: Some(in)}).apply(&tr, existing, false); err != nil {
		t.Fatal(err)
	}
	if len(tr.Levels) != 2 || tr.Levels[0].ID != 0 || tr.Levels[1].ID != 2 || tr.Levels[1].ReachSpend != 300 {
		t.Errorf("levels %+v", tr.Levels)
	}
	in[0].ID = Some[int64](9)
	wantTierFields(t, TierInput{TierLevels: Some(in)}.apply(&tr, existing, false), "tier_levels.0.id")
	in[0].ID = Some[int64](2)
	wantTierFields(t, TierInput{TierLevels: Some(in)}.apply(&tr, existing, false), "tier_levels.1.id")
	wantTierFields(t, TierInput{TierLevels: Opt[[]TierLevelInput]{Set: true, Null: true}}.apply(&tr, existing, false), "tier_levels")
}

func TestEnabledTier(t *testing.T) {
	if _, ok := EnabledTier(nil); ok {
		t.Error("no programs, yet one is enabled")
	}
	if _, ok := EnabledTier([]Tier{{ID: 1}, {ID: 2}}); ok {
		t.Error("disabled programs, yet one is enabled")
	}
	if got, ok := EnabledTier([]Tier{{ID: 1, Enabled: true}, {ID: 2}, {ID: 3, Enabled: true}}); !ok || got.ID != 3 {
		t.Errorf("enabled = %d, %v; want the newest enabled, 3", got.ID, ok)
	}
}
