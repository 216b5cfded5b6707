package loyalty

import (
	"strings"
)

// How a tier program combines a level's thresholds (tiers_relation).
const (
	// TierRelationAny reaches a level when any threshold it sets is met.
	TierRelationAny = 0
	// TierRelationAll reaches a level when every threshold it sets is met.
	TierRelationAll = 1
)

// Over which part of the ledger a tier program counts (reset_type). The
// reference platform describes its reset_type only in words ("future
// period", "previous period", "defined manually"); ours are these three,
// and "based on the previous period" is base_previous_period.
const (
	// TierResetNever counts the whole history: a level, once reached, is
	// kept for life. reset_period_month is ignored.
	TierResetNever = 0
	// TierResetCalendar counts calendar periods of reset_period_month
	// months in UTC, counted from January 1970: a length that divides 12
	// starts a period every January 1st (12: calendar years, 3: quarters).
	TierResetCalendar = 1
	// TierResetRolling counts the last reset_period_month months up to now.
	TierResetRolling = 2
)

// Bounds of a tier program.
const (
	MaxTierLevels         = 20
	MaxResetPeriodMonths  = 60
	maxTierLevelName      = 100
	defaultResetPeriodMon = 12
)

// TierInput is the body of POST /tiers and PUT /tiers/{id}. On update only
// the fields sent change; tier_levels, when sent, replaces every level.
type TierInput struct {
	TiersRelation      Opt[int]              `json:"tiers_relation"`
	ResetType          Opt[int]              `json:"reset_type"`
	ResetPeriodMonth   Opt[int]              `json:"reset_period_month"`
	BasePreviousPeriod Opt[int]              `json:"base_previous_period"`
	Enabled            Opt[bool]             `json:"enabled"`
	TierLevels         Opt[[]TierLevelInput] `json:"tier_levels"`
}

// TierLevelInput is one level of a tier program body, lowest first. On
// update, a level that carries the id of one of the program's levels keeps
// that id; the others are new.
type TierLevelInput struct {
	ID          Opt[int64]  `json:"id"`
	Name        Opt[string] `json:"name"`
	ReachSpend  Opt[Money]  `json:"reach_spend"`
	ReachVisits Opt[int64]  `json:"reach_visits"`
	ReachPoints Opt[int64]  `json:"reach_points"`
}

// newTier is a program with the defaults of a create.
func newTier(businessID string) Tier {
	return Tier{BusinessID: businessID, TiersRelation: TierRelationAny, ResetType: TierResetNever,
		ResetPeriodMonth: defaultResetPeriodMon, Enabled: true}
}

// apply validates in and merges it into t. existing holds the ids of the
// program's current levels (none on create), which levels may keep.
func (in TierInput) apply(t *Tier, existing map[int64]bool, creating bool) error {
	v := Validation{}
	setChoice(v, "tiers_relation", in.TiersRelation, &t.TiersRelation, TierRelationAny, TierRelationAll,
		"0 (any criterion) or 1 (all criteria)")
	setChoice(v, "reset_type", in.ResetType, &t.ResetType, TierResetNever, TierResetRolling,
		"0 (never), 1 (calendar periods) or 2 (rolling window)")
	setChoice(v, "reset_period_month", in.ResetPeriodMonth, &t.ResetPeriodMonth, 1, MaxResetPeriodMonths,
		"a number of months between 1 and "+itoa(MaxResetPeriodMonths))
	setChoice(v, "base_previous_period", in.BasePreviousPeriod, &t.BasePreviousPeriod, 0, 1,
		"0 (the current period alone) or 1 (keep the level of the previous period)")
	if in.Enabled.Set {
		if e, ok := in.Enabled.Value(); ok {
			t.Enabled = e
		} else {
			v.Add("enabled", "The enabled field must be true or false.")
		}
	}
	if levels, ok := in.TierLevels.Value(); ok {
		t.Levels = tierLevels(v, levels, existing)
	} else if in.TierLevels.Set || creating {
		v.Add("tier_levels", "The tier levels field is required: between 1 and "+itoa(MaxTierLevels)+" levels, lowest first.")
	}
	return v.Err()
}

// setChoice reads an integer field that must lie in [lo, hi].
func setChoice(v Validation, field string, o Opt[int], dst *int, lo, hi int, what string) {
	if !o.Set {
		return
	}
	x, ok := o.Value()
	if !ok || x < lo || x > hi {
		v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" must be "+what+".")
		return
	}
	*dst = x
}

// tierLevels validates the levels of a body, lowest first. Only the first
// level may set no threshold (the base level every customer holds); each
// threshold a level sets must be above the same threshold of every lower
// level that sets it.
func tierLevels(v Validation, in []TierLevelInput, existing map[int64]bool) []TierLevel {
	if len(in) == 0 || len(in) > MaxTierLevels {
		v.Add("tier_levels", "Between 1 and "+itoa(MaxTierLevels)+" tier levels are required, lowest first.")
		return nil
	}
	out := make([]TierLevel, len(in))
	names := map[string]bool{}
	kept := map[int64]bool{}
	var top TierLevel // the highest threshold of each criterion so far
	for i, l := range in {
		f := "tier_levels." + itoa(i) + "."
		lv := &out[i]
		if id, ok := l.ID.Value(); ok && existing != nil {
			switch {
			case !existing[id]:
				v.Add(f+"id", "The level id is not a level of this tier program.")
			case kept[id]:
				v.Add(f+"id", "Each level id may appear once.")
			default:
				kept[id], lv.ID = true, id
			}
		}
		name, _ := l.Name.Value()
		name = strings.TrimSpace(name)
		switch key := strings.ToLower(name); {
		case name == "":
			v.Add(f+"name", "The name field is required.")
		case len(name) > maxTierLevelName:
			v.Add(f+"name", "The name may not be greater than "+itoa(maxTierLevelName)+" characters.")
		case names[key]:
			v.Add(f+"name", "Each level needs its own name.")
		default:
			names[key], lv.Name = true, name
		}
		if l.ReachSpend.Null {
			v.Add(f+"reach_spend", "The reach spend may not be null.")
		} else if lv.ReachSpend = l.ReachSpend.V; lv.ReachSpend < 0 || lv.ReachSpend > MaxMoney {
			v.Add(f+"reach_spend", "The reach spend must be between 0 and "+MaxMoney.String()+".")
		}
		lv.ReachVisits = threshold(v, f+"reach_visits", l.ReachVisits)
		lv.ReachPoints = threshold(v, f+"reach_points", l.ReachPoints)
		if i > 0 && lv.ReachSpend == 0 && lv.ReachVisits == 0 && lv.ReachPoints == 0 {
			v.Add(f+"reach_spend", "Only the first level may have no threshold; set reach_spend, reach_visits or reach_points.")
			continue
		}
		if lv.ReachSpend > 0 && lv.ReachSpend <= top.ReachSpend {
			v.Add(f+"reach_spend", "The reach spend must be above the reach spend of the levels below.")
		}
		if lv.ReachVisits > 0 && lv.ReachVisits <= top.ReachVisits {
			v.Add(f+"reach_visits", "The reach visits must be above the reach visits of the levels below.")
		}
		if lv.ReachPoints > 0 && lv.ReachPoints <= top.ReachPoints {
			v.Add(f+"reach_points", "The reach points must be above the reach points of the levels below.")
		}
		top.ReachSpend = max(top.ReachSpend, lv.ReachSpend)
		top.ReachVisits = max(top.ReachVisits, lv.ReachVisits)
		top.ReachPoints = max(top.ReachPoints, lv.ReachPoints)
	}
	return out
}

// threshold reads a whole-number threshold; absent is 0 (unused).
func threshold(v Validation, field string, o Opt[int64]) int64 {
	if o.Null {
		v.Add(field, "The "+strings.ReplaceAll(field[strings.LastIndex(field, ".")+1:], "_", " ")+" may not be null.")
		return 0
	}
	if o.V < 0 || o.V > maxPoints {
		v.Add(field, "The "+strings.ReplaceAll(field[strings.LastIndex(field, ".")+1:], "_", " ")+" must be a whole number between 0 and "+itoa(maxPoints)+".")
		return 0
	}
	return o.V
}

// EnabledTier returns the enabled program among tiers (the newest, should
// several be), and whether there is one.
func EnabledTier(tiers []Tier) (Tier, bool) {
	for i := len(tiers) - 1; i >= 0; i-- {
		if tiers[i].Enabled {
			return tiers[i], true
		}
	}
	return Tier{}, false
}

// Sequence returns the names of the program's levels, lowest first.
func (t Tier) Sequence() []string {
	out := make([]string, len(t.Levels))
	for i, l := range t.Levels {
		out[i] = l.Name
	}
	return out
}
