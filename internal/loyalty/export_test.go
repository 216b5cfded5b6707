package loyalty

import "context"

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
