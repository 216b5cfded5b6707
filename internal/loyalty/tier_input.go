package loyalty

// TierInput is the body of POST /tiers and PUT /tiers/{id}. On update only
// the fields sent change; tier_levels, when sent, replaces every level.
//
// tiers_sequence lists the criteria the program counts (CriterionSpend,
// CriterionPoints, CriterionVisits; strings or numbers): only those are
// validated on the levels and reach a level. When it is not sent with
// tier_levels (on create, or on an update that replaces the levels), it is
// every criterion some level sets, so that no threshold sent is left out;
// an update without either keeps it.
type TierInput struct {
	TiersSequence      Opt[[]any]            `json:"tiers_sequence"`
	TiersRelation      Opt[int]              `json:"tiers_relation"`
	ResetType          Opt[int]              `json:"reset_type"`
	ResetPeriodMonth   Opt[int]              `json:"reset_period_month"`
	BasePreviousPeriod Opt[int]              `json:"base_previous_period"`
	DowngradePolicy    Opt[string]           `json:"downgrade_policy"`
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
