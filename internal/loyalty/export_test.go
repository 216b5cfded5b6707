package loyalty

import (
	"context"
	"time"
)

// DrawAll draws a sending campaign's whole segment as the runner does, a
// batch at a time, and returns the recipients recorded (benchmarks).
func (r *CampaignRunner) DrawAll(ctx context.Context, c Campaign) (int, error) {
	b, err := r.Store.Business(ctx, c.BusinessID)
	if err != nil {
		return 0, err
	}
	total := 0
	for !c.Drawn {
		n, err := r.draw(ctx, r.Store, b, &c, r.Store.Now())
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// PassCriteria is what a pass of a at now selects its candidates by, the
// runs it leaves out included.
func (r *AutomationRunner) PassCriteria(ctx context.Context, b Business, a Automation, now time.Time) (CustomerCriteria, error) {
	rules, err := r.Store.Rules(ctx, b)
	if err != nil {
		return CustomerCriteria{}, err
	}
	loc := rules.location()
	c, _, err := r.criteria(ctx, r.Store, b, a, now, loc)
	c.NotRun = a.Trigger.notRun(a.ID, now, loc)
	return c, err
}
