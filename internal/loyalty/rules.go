package loyalty

import "context"

// Rules are a business's earning rules.
type Rules struct {
	BusinessID            string
	LoyaltyType           string
	RewardRatio           int64 // points per milestone of spend
	RewardMilestoneAmount Money // spend that earns RewardRatio points
	RoundUpPoints         bool  // a partial milestone earns its share, rounded up
	WelcomePoints         int64 // points a new customer receives
	PointsPerVisit        int64 // points per visit, for per_visit businesses
}

// DefaultRules are the rules of a business that never changed them: one
// point per whole unit of money, one point per visit.
func DefaultRules(businessID, loyaltyType string) Rules {
	return Rules{BusinessID: businessID, LoyaltyType: loyaltyType, RewardRatio: 1, RewardMilestoneAmount: 100, PointsPerVisit: 1}
}

// PointsForSpend returns the points a spend earns before offers:
// floor(amount / milestone) × ratio, or with RoundUpPoints the exact share
// amount × ratio / milestone rounded up.
func (r Rules) PointsForSpend(amount Money) int64 {
	if amount <= 0 || r.RewardMilestoneAmount <= 0 || r.RewardRatio <= 0 {
		return 0
	}
	a, m := int64(amount), int64(r.RewardMilestoneAmount)
	if r.RoundUpPoints {
		return (a*r.RewardRatio + m - 1) / m
	}
	return (a / m) * r.RewardRatio
}

// RulesInput is the body of PATCH /rules.
type RulesInput struct {
	Earning Opt[struct {
		RewardRatio           Opt[int64] `json:"reward_ratio"`
		RewardMilestoneAmount Opt[Money] `json:"reward_milestone_amount"`
		RoundUpPoints         Opt[bool]  `json:"round_up_points"`
		WelcomePoints         Opt[int64] `json:"welcome_points"`
	}] `json:"earning"`
	Visits Opt[struct {
		PointsPerVisit Opt[int64] `json:"points_per_visit"`
	}] `json:"visits"`
}

// Apply validates in and merges it into r.
func (in RulesInput) Apply(r *Rules) error {
	v := Validation{}
	if e, ok := in.Earning.Value(); ok {
		if x, ok := e.RewardRatio.Value(); ok {
			if x < 0 || x > 1_000_000 {
				v.Add("earning.reward_ratio", "The reward ratio must be between 0 and 1000000.")
			} else {
				r.RewardRatio = x
			}
		} else if e.RewardRatio.Null {
			v.Add("earning.reward_ratio", "The reward ratio may not be null.")
		}
		if x, ok := e.RewardMilestoneAmount.Value(); ok {
			if x <= 0 {
				v.Add("earning.reward_milestone_amount", "The reward milestone amount must be greater than 0.")
			} else {
				r.RewardMilestoneAmount = x
			}
		} else if e.RewardMilestoneAmount.Null {
			v.Add("earning.reward_milestone_amount", "The reward milestone amount may not be null.")
		}
		if x, ok := e.RoundUpPoints.Value(); ok {
			r.RoundUpPoints = x
		}
		if x, ok := e.WelcomePoints.Value(); ok {
			if x < 0 || x > 1_000_000_000 {
				v.Add("earning.welcome_points", "The welcome points must be between 0 and 1000000000.")
			} else {
				r.WelcomePoints = x
			}
		}
	} else if in.Earning.Null {
		v.Add("earning", "The earning rules may not be null.")
	}
	if vis, ok := in.Visits.Value(); ok {
		if x, ok := vis.PointsPerVisit.Value(); ok {
			if x < 0 || x > 1_000_000 {
				v.Add("visits.points_per_visit", "The points per visit must be between 0 and 1000000.")
			} else {
				r.PointsPerVisit = x
			}
		}
	}
	return v.Err()
}

// Rules returns a business's earning rules, its defaults when it never
// changed them.
func (s *TransactionService) Rules(ctx context.Context, b Business) (Rules, error) {
	return s.Store.Rules(ctx, b)
}
