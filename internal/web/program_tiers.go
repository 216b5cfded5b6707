package web

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// tierLevelRows is how many levels the tier form offers; a row left
// without a name is no level.
const tierLevelRows = 5

// tierFields are the tier program's fields and its level rows.
func tierFields() []setupField {
	fields := []setupField{
		{Name: "tiers_relation", Label: "A level is reached by", Kind: kindIntSelect,
			Options: []option{{"0", "Any of its thresholds"}, {"1", "All of its thresholds"}}},
		{Name: "reset_type", Label: "Progress resets", Kind: kindIntSelect,
			Options: []option{{"0", "Never"}, {"1", "Every calendar period"}, {"2", "Over a rolling window"}}},
		{Name: "reset_period_month", Label: "Period", Kind: kindInt, Unit: "months", Hint: "Of a calendar period or a rolling window."},
		{Name: "base_previous_period", Label: "Keep the level of the previous period", Kind: kindBool},
		{Name: "downgrade_policy", Label: "When a calendar period ends", Kind: kindSelect,
			Options: []option{{loyalty.DowngradeRecompute, "Level from the new period's progress"},
				{loyalty.DowngradeKeep, "Keep the level held"}, {loyalty.DowngradeOneDown, "Drop one level at most"}}},
		enabledField,
	}
	for i := range tierLevelRows {
		p := "tier_levels." + strconv.Itoa(i) + "."
		n := strconv.Itoa(i + 1)
		row := "level" + n
		fields = append(fields,
			setupField{Name: p + "id", Kind: kindHidden},
			setupField{Name: p + "name", Label: "Level " + n + " name", Kind: kindText, Row: row},
			setupField{Name: p + "reach_spend", Label: "Spend", Kind: kindMoney, Row: row},
			setupField{Name: p + "reach_visits", Label: "Visits", Kind: kindInt, Row: row},
			setupField{Name: p + "reach_points", Label: "Points", Kind: kindInt, Row: row})
	}
	return fields
}

var tierKind = &setupKind{Path: "tiers", Title: "Tiers", One: "tier program", Toggle: true,
	Lead:   "Levels customers reach by what they spend, visit or earn. One program is enabled at a time.",
	Fields: tierFields(),
	list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
		all, err := s.Program.Services.Tiers.List(ctx, b)
		var rows []setupRow
		for _, t := range all {
			rows = append(rows, setupRow{ID: intText(t.ID), Title: strings.Join(t.LevelNames(), ", "), Enabled: t.Enabled,
				Facts: []string{strconv.Itoa(len(t.Levels)) + " levels"}})
		}
		return rows, err
	},
	get: func(ctx context.Context, s *Server, b loyalty.Business, id string, _ *time.Location) (map[string]string, []string, error) {
		t, err := s.Program.Services.Tiers.Get(ctx, b, intID(id))
		form := map[string]string{"tiers_relation": strconv.Itoa(t.TiersRelation), "reset_type": strconv.Itoa(t.ResetType),
			"reset_period_month": strconv.Itoa(t.ResetPeriodMonth), "base_previous_period": boolText(t.BasePreviousPeriod == 1),
			"downgrade_policy": t.DowngradePolicy, "enabled": boolText(t.Enabled)}
		for i, l := range t.Levels {
			p := "tier_levels." + strconv.Itoa(i) + "."
			form[p+"id"], form[p+"name"], form[p+"reach_spend"] = intText(l.ID), l.Name, moneyText(l.ReachSpend)
			form[p+"reach_visits"], form[p+"reach_points"] = zeroless(l.ReachVisits), zeroless(l.ReachPoints)
		}
		return form, nil, err
	},
	save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
		in, err := decodeAs[tierForm](body)
		if err != nil {
			return err
		}
		return s.Program.SaveTier(ctx, a, intID(id), name, in.input())
	},
}

// tierForm is the tier form's body: base_previous_period is a checkbox.
type tierForm struct {
	loyalty.TierInput
	BasePrevious bool `json:"base_previous_period"`
}

// input is the API's body of the form.
func (f tierForm) input() loyalty.TierInput {
	in := f.TierInput
	in.BasePreviousPeriod = loyalty.Some(0)
	if f.BasePrevious {
		in.BasePreviousPeriod = loyalty.Some(1)
	}
	return in
}

// zeroless writes n, or "" for 0 (a threshold not used).
func zeroless(n int64) string {
	if n == 0 {
		return ""
	}
	return intText(n)
}
