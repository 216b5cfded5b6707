package loyalty

import (
	"encoding/json"
	"slices"
	"strings"
)

// Limit periods (RuleLimit.Period), local to the business's time zone: a
// day from midnight to midnight, a calendar week from Monday, a calendar
// month, or the rule's whole life.
const (
	PeriodDay      = "day"
	PeriodWeek     = "week"
	PeriodMonth    = "month"
	PeriodLifetime = "lifetime"
)

// LimitPeriods are the periods a limit may count in.
var LimitPeriods = []string{PeriodDay, PeriodWeek, PeriodMonth, PeriodLifetime}

// RuleLimits bound a rule: how often it applies to one customer in a
// period, and how many points it gives everyone in a period. Both hold
// under concurrent rewards on any number of instances: a reward records
// its use in its own transaction, and one that would pass a bound does
// not get the rule.
type RuleLimits struct {
	PerCustomer *RuleLimit `json:"per_customer,omitempty"`
	Budget      *RuleLimit `json:"budget,omitempty"`
}

// RuleLimit is Count uses (per customer) or points (a budget) per Period.
type RuleLimit struct {
	Count  int64  `json:"count"`
	Period string `json:"period"`
}

// limited reports whether the rule has a limit to record.
func (l RuleLimits) limited() bool { return l.PerCustomer != nil || l.Budget != nil }

// limited reports whether a reward the rule applies to records a use:
// its limits, its customer's first purchase (once ever), or a campaign's
// gift (each use counted for the campaign's report, never refused).
func (r EarningRule) limited() bool {
	return r.Limits.limited() || r.Conditions.FirstPurchase || r.Conditions.CampaignID != 0
}

// firstPurchasePeriod is the period of a first-purchase rule's one use.
const firstPurchasePeriod = "first"

// periodKey names the period of p that holds the time periods were
// counted at ("" for the rule's whole life).
func (periods OfferPeriods) key(p string) string {
	switch p {
	case PeriodDay:
		return periods.Day
	case PeriodWeek:
		return periods.Week
	case PeriodMonth:
		return periods.Month
	}
	return ""
}

type limitsInput struct {
	PerCustomer Opt[json.RawMessage] `json:"per_customer"`
	Budget      Opt[json.RawMessage] `json:"budget"`
}

type perCustomerInput struct {
	Count  Opt[int64]  `json:"count"`
	Period Opt[string] `json:"period"`
}

type budgetInput struct {
	Points Opt[int64]  `json:"points"`
	Period Opt[string] `json:"period"`
}

// check reads a rule's limits: a count of uses per customer, a budget of
// points, each in a period (day, week, month, lifetime).
func (l limitsInput) check(v Validation) RuleLimits {
	out := RuleLimits{}
	period := func(field string, p Opt[string]) (string, bool) {
		if s, ok := p.Value(); ok && slices.Contains(LimitPeriods, s) {
			return s, true
		}
		v.Add(field, "The period is one of "+strings.Join(LimitPeriods, ", ")+".")
		return "", false
	}
	if raw, ok := l.PerCustomer.Value(); ok {
		var in perCustomerInput
		if strictObject(v, "limits.per_customer", raw, &in) {
			n, nok := in.Count.Value()
			if !nok || n < 1 || n > maxRuleUses {
				v.Add("limits.per_customer.count", "The count must be a whole number from 1 to "+itoa(maxRuleUses)+": the times the rule applies to one customer in the period.")
			}
			if p, pok := period("limits.per_customer.period", in.Period); pok && nok && n >= 1 && n <= maxRuleUses {
				out.PerCustomer = &RuleLimit{Count: n, Period: p}
			}
		}
	}
	if raw, ok := l.Budget.Value(); ok {
		var in budgetInput
		if strictObject(v, "limits.budget", raw, &in) {
			n, nok := in.Points.Value()
			if !nok || n < 1 || n > maxBudget {
				v.Add("limits.budget.points", "The points must be a whole number from 1 to "+itoa(maxBudget)+": what the rule gives everyone in the period.")
			}
			if p, pok := period("limits.budget.period", in.Period); pok && nok && n >= 1 && n <= maxBudget {
				out.Budget = &RuleLimit{Count: n, Period: p}
			}
		}
	}
	return out
}
