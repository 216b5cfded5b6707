package loyalty

import (
	"encoding/json"
	"slices"
	"strings"
)

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
