package loyalty

import (
	"context"
	"time"
)

// FoldFunc returns what an event adds to the rollups, with days in the
// business's time zone tz, reading what it needs through r.
type FoldFunc func(ctx context.Context, r DashboardReader, tz string, e Event) ([]DayFold, error)

// DashboardStore keeps the dashboard's rollups.
type DashboardStore interface {
	// SequenceEvents numbers the business's committed events (EventStore).
	SequenceEvents(ctx context.Context, businessID string) (int, error)
	// FoldDashboard applies to the rollups, in one transaction, what fold
	// returns for each event of page (the business's events after
	// sequence after, in order), and moves the dashboard cursor from
	// after to the page's last sequence while claim holds it. It applies
	// nothing and reports false when the claim no longer holds the
	// cursor or the cursor is no longer at after.
	FoldDashboard(ctx context.Context, businessID, claim string, after int64, page []Event, leaseUntil time.Time, fold FoldFunc) (bool, error)
	// BackfillDashboards folds into the rollups, for the businesses whose
	// history predates the event log, what no event stands for, once,
	// and returns how many businesses it did.
	BackfillDashboards(ctx context.Context, fold FoldFunc) (int, error)
	// DashboardSnapshot reads, in one consistent snapshot, the rollups of
	// q and the events past the dashboard cursor, folded with fold.
	DashboardSnapshot(ctx context.Context, businessID string, q DashboardQuery, fold FoldFunc) (DashboardData, error)
}

// DashboardQuery selects a dashboard's period (days in the business's
// time zone, both included) and branch ("" for all).
type DashboardQuery struct {
	From, To string
	BranchID string
	Now      time.Time // the active members are counted up to its day
}

// DashboardRow is a rollup row: a day's figures at a branch.
type DashboardRow struct {
	Day      string
	BranchID string
	Figures  Figures
}

// PointValue is what a reward gives in money for its points.
type PointValue struct {
	Value  Money
	Points int64
}

// DashboardData is what a dashboard is computed from, read at one instant.
type DashboardData struct {
	TimeZone    string
	Rows        []DashboardRow // of the period (the branch's and branch "" when one is chosen)
	Pending     []DayFold      // the events past the cursor, folded
	Members     int64          // active customers now
	Outstanding int64          // Σ customers' points
	// Active30 and Active90 count the customers whose last folded visit
	// is on or after the first day of the last 30 (90) days; LastVisits
	// gives the folded last visit day ("" for none) of each visitor of
	// Pending, so that they count once.
	Active30, Active90 int64
	LastVisits         map[string]string
	Values             []PointValue // the available rewards with a money value
}

// ActiveSince are the first days of the last 30 and 90 days at now in
// tz, today included.
func ActiveSince(now time.Time, tz string) (since30, since90 string) {
	today := now.In(BusinessLocation(tz))
	return today.AddDate(0, 0, -29).Format(DayFormat), today.AddDate(0, 0, -89).Format(DayFormat)
}

// Fold is the FoldFunc of FoldEvent, loading each time zone once.
func Fold() FoldFunc {
	zones := map[string]*time.Location{}
	return func(ctx context.Context, r DashboardReader, tz string, e Event) ([]DayFold, error) {
		loc, ok := zones[tz]
		if !ok {
			loc = BusinessLocation(tz)
			zones[tz] = loc
		}
		return FoldEvent(ctx, r, loc, e)
	}
}

// DashboardService computes the merchant dashboard.
type DashboardService struct {
	Store DashboardStore
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
	Figures
}

// Summary is the dashboard of a business for a period and branch.
type Summary struct {
	From, To, BranchID, By string
	Members                int64 // total, now
	Active30, Active90     int64 // with a visit in the last 30 (90) days
	Figures                      // of the period
	Outstanding            int64 // points held by customers, now
	// PointValue is the money one point is worth — the best value per
	// point among the available catalog items with one (a free product's
	// value, a cashback's amount) — as that value over its points; Liability
	// is Outstanding × PointValue, rounded down to the minor unit. Both are
	// zero when no reward has a money value.
	PointValue PointValue
	Liability  Money
	// RedemptionRate is PointsRedeemed / PointsIssued in basis points
	// (hundredths of a percent); 0 when nothing was issued.
	RedemptionRate int64
	Series         []Point
}

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
	d, err := s.Store.DashboardSnapshot(ctx, businessID, DashboardQuery{From: from, To: to, BranchID: branchID, Now: now}, Fold())
	if err != nil {
		return Summary{}, err
	}
	out := Summary{From: from, To: to, BranchID: branchID, By: by, Members: d.Members, Active30: d.Active30,
		Active90: d.Active90, Outstanding: d.Outstanding}
	buckets := map[string]*Figures{}
	add := func(day, branch string, f Figures) {
		if day < from || day > to {
			return
		}
		if branchID != "" {
			if branch != branchID {
				// Members and referrals belong to no branch: every branch shows them.
				f = Figures{MembersNew: f.MembersNew, ReferralsPaid: f.ReferralsPaid}
			}
		}
		key := day
		if by == ByMonth {
			key = day[:7]
		}
		if buckets[key] == nil {
			buckets[key] = &Figures{}
		}
		buckets[key].Add(f)
		out.Figures.Add(f)
	}
	for _, r := range d.Rows {
		add(r.Day, r.BranchID, r.Figures)
	}
	since30, since90 := ActiveSince(now, d.TimeZone)
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
	out.PointValue = bestPointValue(d.Values)
	if out.PointValue.Points > 0 {
		out.Liability = Money(out.Outstanding * int64(out.PointValue.Value) / out.PointValue.Points)
	}
	if out.PointsIssued > 0 {
		out.RedemptionRate = out.PointsRedeemed * 10000 / out.PointsIssued
	}
	return out, nil
}

// checkPeriod refuses a period that is not two days in order, or longer
// than ten years.
func checkPeriod(from, to string) error {
	f, err1 := time.Parse(DayFormat, from)
	t, err2 := time.Parse(DayFormat, to)
	switch {
	case err1 != nil:
		return Invalid("from", "Enter the first day as YYYY-MM-DD.")
	case err2 != nil:
		return Invalid("to", "Enter the last day as YYYY-MM-DD.")
	case t.Before(f):
		return Invalid("to", "The last day must not be before the first.")
	case t.After(f.AddDate(10, 0, 0)):
		return Invalid("to", "Choose a period of at most ten years.")
	}
	return nil
}

// series lists every day (or month) of the period in order, empty ones
// included, so that a chart shows the gaps.
func series(from, to, by string, buckets map[string]*Figures) []Point {
	var out []Point
	f, _ := time.Parse(DayFormat, from)
	t, _ := time.Parse(DayFormat, to)
	for d := f; !d.After(t); {
		label := d.Format(DayFormat)
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

// bestPointValue is the value with the most money per point (compared
// exactly, by cross-multiplication).
func bestPointValue(values []PointValue) PointValue {
	var best PointValue
	for _, v := range values {
		if v.Points <= 0 || v.Value <= 0 {
			continue
		}
		if best.Points == 0 || int64(v.Value)*best.Points > int64(best.Value)*v.Points {
			best = v
		}
	}
	return best
}
