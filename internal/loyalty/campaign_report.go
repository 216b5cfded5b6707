package loyalty

import (
	"context"
	"math"
	"time"
)

// CampaignReport is what a campaign did: what happened to its recipients,
// and what its recipients did in the ReportDays after it began against
// its holdout. The comparison is by intention to treat: every recipient
// drawn outside the holdout counts, reached or not (consent refused a
// message to some), since only the draw itself is random.
type CampaignReport struct {
	Campaign Campaign
	Tally    RecipientTally
	// From and To bound the window compared; Complete once To has passed.
	From, To time.Time
	Complete bool
	Treated  GroupMeans // the recipients drawn outside the holdout
	Holdout  GroupMeans
	// Visits, Spend and Points are the difference of the means per
	// member (treated less holdout) with its 95 % confidence interval.
	Visits, Spend, Points Difference
}

// GroupMeans are a group's size and means per member over the window.
type GroupMeans struct {
	Members               int
	Visits, Spend, Points float64 // spend in the currency's major unit
}

// Difference is an estimate with a 95 % confidence interval. Set is
// false when either group has fewer than two members.
type Difference struct {
	Set              bool
	Value, Low, High float64
}

// Report reports on a campaign.
func (s *CampaignService) Report(ctx context.Context, b Business, id string) (CampaignReport, error) {
	c, err := s.Get(ctx, b, id)
	if err != nil {
		return CampaignReport{}, err
	}
	rep := CampaignReport{Campaign: c}
	if rep.Tally, err = s.Tally(ctx, b, c); err != nil {
		return rep, err
	}
	if c.StartedAt.IsZero() {
		return rep, nil
	}
	rep.From = c.StartedAt
	rep.To = c.StartedAt.AddDate(0, 0, c.ReportDays)
	now := s.Store.Now()
	rep.Complete = !now.Before(rep.To)
	sums, err := s.Store.RecipientActivity(ctx, c.ID, rep.From, rep.To)
	if err != nil {
		return rep, err
	}
	var treated, holdout [3]moments
	for _, r := range sums {
		g := &treated
		if r.Holdout {
			g = &holdout
		}
		g[0].add(float64(r.Visits))
		g[1].add(float64(r.Spend) / 100)
		g[2].add(float64(r.Points))
	}
	rep.Treated = GroupMeans{Members: treated[0].n, Visits: treated[0].mean(), Spend: treated[1].mean(), Points: treated[2].mean()}
	rep.Holdout = GroupMeans{Members: holdout[0].n, Visits: holdout[0].mean(), Spend: holdout[1].mean(), Points: holdout[2].mean()}
	rep.Visits = difference(treated[0], holdout[0])
	rep.Spend = difference(treated[1], holdout[1])
	rep.Points = difference(treated[2], holdout[2])
	return rep, nil
}

// moments accumulates a sample's size, mean and sum of squared
// deviations (Welford), stable for large groups.
type moments struct {
	n       int
	avg, m2 float64
}

func (m *moments) add(x float64) {
	m.n++
	d := x - m.avg
	m.avg += d / float64(m.n)
	m.m2 += d * (x - m.avg)
}

func (m moments) mean() float64 { return m.avg }

// variance is the sample variance.
func (m moments) variance() float64 {
	if m.n < 2 {
		return 0
	}
	return m.m2 / float64(m.n-1)
}

// difference is the difference of two means with Welch's standard error
// and a normal 95 % interval (the groups a campaign compares are large).
func difference(a, b moments) Difference {
	if a.n < 2 || b.n < 2 {
		return Difference{}
	}
	d := a.mean() - b.mean()
	se := math.Sqrt(a.variance()/float64(a.n) + b.variance()/float64(b.n))
	return Difference{Set: true, Value: d, Low: d - 1.96*se, High: d + 1.96*se}
}

// Tally is what happened to a campaign's recipients, without the
// comparison with the holdout (the report's costly part): for a list.
func (s *CampaignService) Tally(ctx context.Context, b Business, c Campaign) (RecipientTally, error) {
	if c.BusinessID != b.ID {
		return RecipientTally{}, campaignNotFound()
	}
	t, err := s.Store.RecipientTally(ctx, c.ID, CouponClaimed())
	if err != nil || c.GiftRuleID == 0 {
		return t, err
	}
	// An earning rule is given to every recipient reached, and used by
	// those who earned by it (each such reward counts its use).
	t.Gifts = t.Outcomes[RecipientSent]
	t.GiftsUsed, err = s.Store.RuleUsers(ctx, c.GiftRuleID, campaignPeriod(c.ID))
	return t, err
}
