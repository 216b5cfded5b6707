package loyalty

import (
	"slices"
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
	// months in the business's time zone, counted from January 1970: a
	// length that divides 12 starts a period every January 1st (12:
	// calendar years, 3: quarters).
	TierResetCalendar = 1
	// TierResetRolling counts the last reset_period_month months up to now.
	TierResetRolling = 2
)

// What the end of a calendar period does to the level a customer held
// (downgrade_policy). The level held in a period is the highest of what
// its totals reach, with base_previous_period what the previous period's
// reached, and what the policy kept from the period before.
const (
	// DowngradeRecompute keeps nothing: the new period's level is what
	// its totals reach (and the previous period's, with
	// base_previous_period 1).
	DowngradeRecompute = "recompute"
	// DowngradeKeep keeps the level held when a period ends through the
	// next: a level is never lowered by a period's end.
	DowngradeKeep = "keep"
	// DowngradeOneDown keeps the level held when a period ends one level
	// lower through the next: a customer drops one level per period at
	// most.
	DowngradeOneDown = "one_down"
)

// The criteria a tier program counts, as tiers_sequence lists them: the
// reference platform's codes, kept as strings.
const (
	CriterionSpend  = "1" // reach_spend: money spent in the period
	CriterionPoints = "2" // reach_points: points earned in the period
	CriterionVisits = "3" // reach_visits: visits in the period
)

// allCriteria are the criteria in their code order.
var allCriteria = []string{CriterionSpend, CriterionPoints, CriterionVisits}

// criterionField is the level field each criterion reads.
var criterionField = map[string]string{CriterionSpend: "reach_spend", CriterionPoints: "reach_points", CriterionVisits: "reach_visits"}

// Bounds of a tier program.
const (
	MaxTierLevels         = 20
	MaxResetPeriodMonths  = 60
	maxTierLevelName      = 100
	defaultResetPeriodMon = 12
)

// Tier is a business's tier program: how levels are reached and when
// progress resets.
type Tier struct {
	ID                 int64
	BusinessID         string
	Sequence           []string // tiers_sequence: the criteria counted (Criterion*); empty for a program stored before it, see Criteria
	TiersRelation      int      // 0: any criterion reaches a level, 1: all are needed
	ResetType          int
	ResetPeriodMonth   int
	BasePreviousPeriod int
	// DowngradePolicy is what a calendar period's end does to the levels
	// held (Downgrade*).
	DowngradePolicy string
	Enabled         bool
	Levels          []TierLevel
	// TimeZone is the business's (its profile's time_zone), in which
	// calendar periods begin; read with the program, never written by it.
	TimeZone string
}

// TierLevel is one level of a tier program.
type TierLevel struct {
	ID          int64
	Name        string
	ReachSpend  Money
	ReachVisits int64
	ReachPoints int64
}

// newTier is a program with the defaults of a create.
func newTier(businessID string) Tier {
	return Tier{BusinessID: businessID, TiersRelation: TierRelationAny, ResetType: TierResetNever,
		ResetPeriodMonth: defaultResetPeriodMon, DowngradePolicy: DowngradeRecompute, Enabled: true}
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
	if in.DowngradePolicy.Set {
		switch p, _ := in.DowngradePolicy.Value(); p {
		case DowngradeRecompute, DowngradeKeep, DowngradeOneDown:
			t.DowngradePolicy = p
		default:
			v.Add("downgrade_policy", "The downgrade policy must be recompute, keep or one_down.")
		}
	}
	if t.keeps() && t.ResetType != TierResetCalendar && !v.Has("downgrade_policy") {
		// Only a calendar period has an end for the policy to act at.
		v.Add("downgrade_policy", "The downgrade policy keep or one_down acts when a calendar period ends: it needs reset_type 1.")
	}
	if in.Enabled.Set {
		if e, ok := in.Enabled.Value(); ok {
			t.Enabled = e
		} else {
			v.Add("enabled", "The enabled field must be true or false.")
		}
	}
	seq, seqSent := tiersSequence(v, in.TiersSequence)
	seqBad := in.TiersSequence.Set && !seqSent
	levels, levelsSent := in.TierLevels.Value()
	switch {
	case levelsSent:
		t.Levels = tierLevels(v, levels, existing)
		if !seqSent {
			seq = derivedCriteria(t.Levels)
		}
		if !seqBad {
			checkLevelOrder(v, t.Levels, seq, "tier_levels.")
		}
	case in.TierLevels.Set || creating:
		v.Add("tier_levels", "The tier levels field is required: between 1 and "+itoa(MaxTierLevels)+" levels, lowest first.")
	case seqSent:
		// The levels stay: they must rise on the new criteria.
		lv := Validation{}
		if checkLevelOrder(lv, t.Levels, seq, "tier_levels."); len(lv) > 0 {
			fields := make([]string, 0, len(lv))
			for f := range lv {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			v.Add("tiers_sequence", "The current levels do not rise on these criteria ("+strings.Join(fields, ", ")+"); send tier_levels with the sequence.")
		}
	default:
		seq = t.Criteria()
	}
	t.Sequence = seq
	return v.Err()
}

// tiersSequence reads a tiers_sequence body: one to three distinct
// criterion codes, as strings ("2") or numbers (2). ok is false when it was
// not sent (or is invalid, which v then says).
func tiersSequence(v Validation, o Opt[[]any]) (seq []string, ok bool) {
	if !o.Set {
		return nil, false
	}
	list, sent := o.Value()
	if !sent || len(list) == 0 || len(list) > len(allCriteria) {
		v.Add("tiers_sequence", "The tiers sequence must list 1 to 3 criteria: \"1\" (spend), \"2\" (points), \"3\" (visits).")
		return nil, false
	}
	ok = true
	for i, x := range list {
		var code string
		switch c := x.(type) {
		case string:
			code = strings.TrimSpace(c)
		case float64:
			if c == float64(int(c)) {
				code = itoa(int(c))
			}
		}
		f := "tiers_sequence." + itoa(i)
		switch {
		case criterionField[code] == "":
			v.Add(f, "A criterion is \"1\" (spend), \"2\" (points) or \"3\" (visits).")
			ok = false
		case slices.Contains(seq, code):
			v.Add(f, "Each criterion may appear once.")
			ok = false
		default:
			seq = append(seq, code)
		}
	}
	return seq, ok
}

// derivedCriteria are the criteria some level sets, in code order; every
// criterion when none does (a lone base level).
func derivedCriteria(levels []TierLevel) []string {
	var out []string
	for _, c := range allCriteria {
		for _, l := range levels {
			if l.threshold(c) > 0 {
				out = append(out, c)
				break
			}
		}
	}
	if out == nil {
		out = slices.Clone(allCriteria)
	}
	return out
}

// Criteria returns the criteria the program counts, in its order: its
// tiers_sequence, or for a program stored without one, the criteria its
// levels set.
func (t Tier) Criteria() []string {
	if len(t.Sequence) > 0 {
		return t.Sequence
	}
	return derivedCriteria(t.Levels)
}

// threshold returns what the level needs on criterion c; 0 is unused.
func (l TierLevel) threshold(c string) int64 {
	switch c {
	case CriterionSpend:
		return int64(l.ReachSpend)
	case CriterionPoints:
		return l.ReachPoints
	case CriterionVisits:
		return l.ReachVisits
	}
	return 0
}

// checkLevelOrder checks the levels on the criteria of seq, naming fields
// under prefix: only the first level may set none of them (the base level
// every customer holds), and each one a level sets must be above the same
// threshold of every lower level that sets it. Thresholds of the other
// criteria are kept but neither compared nor counted.
func checkLevelOrder(v Validation, levels []TierLevel, seq []string, prefix string) {
	top := map[string]int64{} // the highest threshold of each criterion so far
	for i, l := range levels {
		f := prefix + itoa(i) + "."
		set := false
		for _, c := range seq {
			x := l.threshold(c)
			if x <= 0 {
				continue
			}
			set = true
			if x <= top[c] {
				name := strings.ReplaceAll(criterionField[c], "_", " ")
				v.Add(f+criterionField[c], "The "+name+" must be above the "+name+" of the levels below.")
			}
			top[c] = max(top[c], x)
		}
		if i > 0 && !set {
			fields := make([]string, len(seq))
			for j, c := range seq {
				fields[j] = criterionField[c]
			}
			v.Add(f+criterionField[seq[0]], "Only the first level may have no threshold; set "+strings.Join(fields, ", ")+" (the criteria of tiers_sequence).")
		}
	}
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

// tierLevels validates the levels of a body, lowest first: ids, names and
// the range of each threshold (checkLevelOrder compares them).
func tierLevels(v Validation, in []TierLevelInput, existing map[int64]bool) []TierLevel {
	if len(in) == 0 || len(in) > MaxTierLevels {
		v.Add("tier_levels", "Between 1 and "+itoa(MaxTierLevels)+" tier levels are required, lowest first.")
		return nil
	}
	out := make([]TierLevel, len(in))
	names := map[string]bool{}
	kept := map[int64]bool{}
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

// LevelNames returns the names of the program's levels, lowest first.
func (t Tier) LevelNames() []string {
	out := make([]string, len(t.Levels))
	for i, l := range t.Levels {
		out[i] = l.Name
	}
	return out
}
