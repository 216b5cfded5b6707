package console

import (
	"context"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// DashboardService computes the merchant dashboard.
type DashboardService struct {
	Store loyalty.DashboardStore
	Clock func() time.Time
}

// Period buckets of the dashboard's series.
const (
	ByDay   = "day"
	ByMonth = "month"
)

// Point is one bucket of the series: a day or a month.
type Point struct {
	Label string // YYYY-MM-DD or YYYY-MM
	loyalty.Figures
}

// Summary is the dashboard of a business for a period and branch.
type Summary struct {
	From, To, BranchID, By string
	Members                int64 // total, now
	Active30, Active90     int64 // with a visit in the last 30 (90) days
	loyalty.Figures              // of the period
	Outstanding            int64 // points held by customers, now
	// PointValue is the money one point is counted at
	// (loyalty.LiabilityValue: the business's redemption value, else the
	// best value per point among its rewards), as that value over its
	// points; Liability is Outstanding × PointValue, rounded down to the
	// minor unit. Both are zero when there is no such value.
	PointValue   loyalty.PointValue
	Liability    loyalty.Money
	ByRedemption bool // PointValue is the business's redemption value
	// RedemptionRate is PointsRedeemed / PointsIssued in basis points
	// (hundredths of a percent); 0 when nothing was issued.
	RedemptionRate int64
	Series         []Point

	// PrevFrom and PrevTo are the period the figures are compared with
	// (loyalty.PreviousPeriod), Previous its figures.
	PrevFrom, PrevTo string
	Previous         loyalty.Figures
	// Insights are the period's rankings and member activity, read from
	// the ledger; PrevActivity is the previous period's member activity.
	Insights     loyalty.Insights
	PrevActivity loyalty.MemberActivity
	// Tiers are the enabled tier program's members per level (none
	// without one).
	Tiers []loyalty.TierShare
}

// TopN is how many rewards, offers and customers the dashboard ranks.
const TopN = 5

// Summary returns the dashboard of a business from one day to another
// (YYYY-MM-DD in its time zone, both included) at a branch ("" for all),
// with its series by day or by month. It is exact at the time it is read:
// the rollups are read with the events the follower has not folded yet.
// New members and referrals are the business's, whatever the branch.
func (s *DashboardService) Summary(ctx context.Context, businessID, from, to, branchID, by string) (Summary, error) {
	if err := checkPeriod(from, to); err != nil {
		return Summary{}, err
	}
	if by != ByMonth {
		by = ByDay
	}
	if _, err := s.Store.SequenceEvents(ctx, businessID); err != nil {
		return Summary{}, err
	}
	now := time.Now()
	if s.Clock != nil {
		now = s.Clock()
	}
	prevFrom, prevTo, err := loyalty.PreviousPeriod(from, to)
	if err != nil {
		return Summary{}, err
	}
	// One snapshot of the rollups from the previous period's first day:
	// the days before from are the previous period's.
	d, err := s.Store.DashboardSnapshot(ctx, businessID, loyalty.DashboardQuery{From: prevFrom, To: to, BranchID: branchID, Now: now}, loyalty.Fold())
	if err != nil {
		return Summary{}, err
	}
	out := Summary{From: from, To: to, BranchID: branchID, By: by, Members: d.Members, Active30: d.Active30,
		Active90: d.Active90, Outstanding: d.Outstanding, PrevFrom: prevFrom, PrevTo: prevTo}
	buckets := map[string]*loyalty.Figures{}
	add := func(day, branch string, f loyalty.Figures) {
		if branchID != "" {
			if branch != branchID {
				// Members and referrals belong to no branch: every branch shows them.
				f = loyalty.Figures{MembersNew: f.MembersNew, ReferralsPaid: f.ReferralsPaid}
			}
		}
		if day >= prevFrom && day <= prevTo {
			out.Previous.Add(f)
			return
		}
		if day < from || day > to {
			return
		}
		key := day
		if by == ByMonth {
			key = day[:7]
		}
		if buckets[key] == nil {
			buckets[key] = &loyalty.Figures{}
		}
		buckets[key].Add(f)
		out.Figures.Add(f)
	}
	for _, r := range d.Rows {
		add(r.Day, r.BranchID, r.Figures)
	}
	since30, since90 := loyalty.ActiveSince(now, d.TimeZone)
	visitors := map[string]string{}
	for _, f := range d.Pending {
		add(f.Day, f.BranchID, f.Figures)
		if f.Visitor != "" && f.Day > visitors[f.Visitor] {
			visitors[f.Visitor] = f.Day
		}
	}
	for c, day := range visitors {
		last := d.LastVisits[c]
		if day >= since30 && last < since30 {
			out.Active30++
		}
		if day >= since90 && last < since90 {
			out.Active90++
		}
	}
	out.Series = series(from, to, by, buckets)
	out.PointValue, out.Liability = d.Liability()
	out.ByRedemption = d.Redemption.Redeeming()
	if out.PointsIssued > 0 {
		out.RedemptionRate = out.PointsRedeemed * 10000 / out.PointsIssued
	}
	if err := s.insights(ctx, businessID, d, &out); err != nil {
		return Summary{}, err
	}
	return out, nil
}

// insights adds to out the rankings and member activity of its period and
// the previous one, read from the ledger, and the tier mix.
func (s *DashboardService) insights(ctx context.Context, businessID string, d loyalty.DashboardData, out *Summary) error {
	start, end, err := loyalty.DayRange(out.From, out.To, d.TimeZone)
	if err != nil {
		return err
	}
	if out.Insights, err = s.Store.DashboardInsights(ctx, businessID, loyalty.InsightQuery{Start: start, End: end,
		BranchID: out.BranchID, Limit: TopN}); err != nil {
		return err
	}
	if start, end, err = loyalty.DayRange(out.PrevFrom, out.PrevTo, d.TimeZone); err != nil {
		return err
	}
	if out.PrevActivity, err = s.Store.MemberActivity(ctx, businessID, loyalty.InsightQuery{Start: start, End: end,
		BranchID: out.BranchID}); err != nil {
		return err
	}
	tiers, err := s.Store.Tiers(ctx, businessID)
	if err != nil {
		return err
	}
	if t, ok := loyalty.EnabledTier(tiers); ok {
		held, err := s.Store.TierMembers(ctx, businessID, t.ID)
		if err != nil {
			return err
		}
		out.Tiers = loyalty.TierMix(t, held, out.Members)
	}
	return nil
}

// checkPeriod refuses a period that is not two days in order, or longer
// than ten years.
func checkPeriod(from, to string) error {
	f, err1 := time.Parse(loyalty.DayFormat, from)
	t, err2 := time.Parse(loyalty.DayFormat, to)
	switch {
	case err1 != nil:
		return loyalty.Invalid("from", "Enter the first day as YYYY-MM-DD.")
	case err2 != nil:
		return loyalty.Invalid("to", "Enter the last day as YYYY-MM-DD.")
	case t.Before(f):
		return loyalty.Invalid("to", "The last day must not be before the first.")
	case t.After(f.AddDate(10, 0, 0)):
		return loyalty.Invalid("to", "Choose a period of at most ten years.")
	}
	return nil
}

// series lists every day (or month) of the period in order, empty ones
// included, so that a chart shows the gaps.
func series(from, to, by string, buckets map[string]*loyalty.Figures) []Point {
	var out []Point
	f, _ := time.Parse(loyalty.DayFormat, from)
	t, _ := time.Parse(loyalty.DayFormat, to)
	for d := f; !d.After(t); {
		label := d.Format(loyalty.DayFormat)
		next := d.AddDate(0, 0, 1)
		if by == ByMonth {
			label = d.Format("2006-01")
			next = time.Date(d.Year(), d.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		}
		p := Point{Label: label}
		if b := buckets[label]; b != nil {
			p.Figures = *b
		}
		out = append(out, p)
		d = next
	}
	return out
}
