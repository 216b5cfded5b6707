package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// dashboardPage is the body of the dashboard template.
type dashboardPage struct {
	console.Summary
	Business  loyalty.Business // whose currency amounts are in
	TimeZone  string
	Branches  []loyalty.Branch
	Branch    string // the chosen branch's name; "" for all
	Rate      string // the redemption rate, as a percentage
	Value     string // what a point is worth, in words
	Charts    []barChart
	Rows      []dashboardRow
	BucketCol string // "Day" or "Month"
}

// dashboardRow is a line of the numbers table.
type dashboardRow struct {
	Label string
	loyalty.Figures
}

// dashboard shows the program's figures for a period and branch, with
// the series as charts and as a table. Without a period it shows the
// last 30 days; by month when the period is longer than two months.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	ctx := r.Context()
	prof, err := s.businessProfile(r, a)
	if err != nil {
		return err
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	branches, err := s.Program.Services.Branches.All(ctx, b)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	today := time.Now().In(prof.Location())
	from, to, by, branch := q.Get("from"), q.Get("to"), q.Get("by"), q.Get("branch")
	if from == "" && to == "" {
		from, to = today.AddDate(0, 0, -29).Format(loyalty.DayFormat), today.Format(loyalty.DayFormat)
	}
	if by != console.ByDay && by != console.ByMonth {
		by = console.ByDay
		if f, t, err := periodDays(from, to); err == nil && t.Sub(f) > 62*24*time.Hour {
			by = console.ByMonth
		}
	}
	v := s.consoleView(r, a, "Dashboard")
	v.Form = map[string]string{"from": from, "to": to, "by": by, "branch": branch}
	p := dashboardPage{Business: b, TimeZone: prof.Location().String(), Branches: branches}
	known := branch == ""
	for _, br := range branches {
		if br.ID == branch {
			known, p.Branch = true, br.Name
		}
	}
	var sum console.Summary
	if !known {
		err = loyalty.Invalid("branch", "Choose one of your branches.")
	} else {
		sum, err = s.Console.Dashboard.Summary(ctx, a.BusinessID, from, to, branch, by)
	}
	status := http.StatusOK
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		v.Fields, v.Error, status = e.Fields, "Please correct the period marked below.", httpapi.StatusOf(e.Code)
	} else if err != nil {
		return err
	} else {
		p.Summary = sum
		p.fill()
	}
	v.Data = p
	s.render(w, r, status, "dashboard", v)
	return nil
}

// periodDays parses a period's first and last days.
func periodDays(from, to string) (time.Time, time.Time, error) {
	f, err := time.Parse(loyalty.DayFormat, from)
	if err != nil {
		return f, f, err
	}
	t, err := time.Parse(loyalty.DayFormat, to)
	return f, t, err
}

// fill writes the summary's figures in words and lays out its charts.
func (p *dashboardPage) fill() {
	p.Rate = strconv.FormatInt(p.RedemptionRate/100, 10) + "." + twoDigits(p.RedemptionRate%100) + "%"
	if p.PointValue.Redeeming() {
		p.Value = format.Money(p.PointValue.Value, p.Business) + " for " + strconv.FormatInt(p.PointValue.Points, 10) + " points"
	}
	p.BucketCol = "Day"
	if p.By == console.ByMonth {
		p.BucketCol = "Month"
	}
	n := len(p.Series)
	labels := make([]string, n)
	visits, revenue, issued, redeemed, members := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, pt := range p.Series {
		labels[i] = pt.Label
		visits[i], revenue[i], issued[i], redeemed[i], members[i] = pt.Visits, int64(pt.Revenue), pt.PointsIssued, pt.PointsRedeemed, pt.MembersNew
		p.Rows = append(p.Rows, dashboardRow{Label: pt.Label, Figures: pt.Figures})
	}
	count := func(v int64) string { return strconv.FormatInt(v, 10) }
	money := func(v int64) string { return format.Money(loyalty.Money(v), p.Business) }
	per := "per " + map[string]string{console.ByDay: "day", console.ByMonth: "month"}[p.By]
	period := " from " + p.From + " to " + p.To
	p.Charts = []barChart{
		newBarChart("chart-visits", "Visits "+per, "Visits "+per+period+": "+count(p.Visits)+" in all.", labels, count,
			chartSeries{Name: "Visits", Class: "bar-a", Values: visits}),
		newBarChart("chart-revenue", "Loyalty revenue "+per, "Amount of rewarded purchases "+per+period+": "+
			money(int64(p.Revenue))+" in all.", labels, money, chartSeries{Name: "Revenue", Class: "bar-a", Values: revenue}),
		newBarChart("chart-points", "Points issued and redeemed "+per, "Points issued and redeemed "+per+period+": "+
			count(p.PointsIssued)+" issued, "+count(p.PointsRedeemed)+" redeemed.", labels, count,
			chartSeries{Name: "Issued", Class: "bar-a", Values: issued}, chartSeries{Name: "Redeemed", Class: "bar-b", Values: redeemed}),
		newBarChart("chart-members", "New members "+per, "Customers who joined "+per+period+": "+count(p.MembersNew)+" in all.",
			labels, count, chartSeries{Name: "New members", Class: "bar-a", Values: members}),
	}
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
