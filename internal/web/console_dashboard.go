package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// dashboardPage is the body of the dashboard template: the cockpit.
type dashboardPage struct {
	console.Summary
	Business  loyalty.Business // whose currency amounts are in
	TimeZone  string
	Branches  []loyalty.Branch
	Branch    string // the chosen branch's name; "" for all
	Period    string // the period in words
	Compared  string // what it is compared with, in words
	Against   string // the same, short, for the figures
	Presets   []preset
	Custom    bool // the period is none of the presets
	Figures   []kpi
	Tiers     []tierRow
	Charts    []barChart
	Rows      []dashboardRow
	BucketCol string // "Day" or "Month"
}

// preset is a period offered as a link.
type preset struct {
	Label, Href string
	Current     bool
}

// dashboardRow is a line of the numbers table.
type dashboardRow struct {
	Label string
	loyalty.Figures
}

// dashboard shows the cockpit: the program's figures for a period and
// branch beside the previous period's, what sold (rewards, offers,
// customers), the tier mix, and the series as charts and as a table.
// Without a period it shows the last 30 days; by month when the period is
// longer than two months.
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
	p.Presets, p.Custom = presets(today, from, to, branch)
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

// presets are the periods offered as links at today (in the business's
// time zone), keeping the branch; the one shown is marked, and custom
// reports that none is.
func presets(today time.Time, from, to, branch string) ([]preset, bool) {
	day := func(t time.Time) string { return t.Format(loyalty.DayFormat) }
	first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	periods := []struct{ label, from, to string }{
		{"7 days", day(today.AddDate(0, 0, -6)), day(today)},
		{"30 days", day(today.AddDate(0, 0, -29)), day(today)},
		{"90 days", day(today.AddDate(0, 0, -89)), day(today)},
		{"This month", day(first), day(today)},
		{"Last month", day(first.AddDate(0, -1, 0)), day(first.AddDate(0, 0, -1))},
	}
	custom := true
	out := make([]preset, len(periods))
	for i, p := range periods {
		q := url.Values{"from": {p.from}, "to": {p.to}}
		if branch != "" {
			q.Set("branch", branch)
		}
		out[i] = preset{Label: p.label, Href: dashboardHome + "?" + q.Encode(), Current: p.from == from && p.to == to}
		custom = custom && !out[i].Current
	}
	return out, custom
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
	p.Period = periodWords(p.From, p.To)
	p.Compared, p.Against = comparedWords(p.From, p.To, p.PrevFrom, p.PrevTo)
	p.Figures = p.kpis()
	p.Tiers = tierRows(p.Summary.Tiers)
	p.BucketCol = "Day"
	if p.By == console.ByMonth {
		p.BucketCol = "Month"
	}
	n := len(p.Series)
	labels := make([]string, n)
	visits, revenue, issued, redeemed, members := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, pt := range p.Series {
		labels[i] = bucketLabel(pt.Label, "Jan 2", "Jan 2006")
		visits[i], revenue[i], issued[i], redeemed[i], members[i] = pt.Visits, int64(pt.Revenue), pt.PointsIssued, pt.PointsRedeemed, pt.MembersNew
		p.Rows = append(p.Rows, dashboardRow{Label: bucketLabel(pt.Label, "Mon, Jan 2, 2006", "January 2006"), Figures: pt.Figures})
	}
	count := func(v int64) string { return thousands(v) }
	money := func(v int64) string { return format.Money(loyalty.Money(v), p.Business) }
	axisMoney := func(v int64) string { return format.Compact(loyalty.Money(v), p.Business) }
	per := "per " + map[string]string{console.ByDay: "day", console.ByMonth: "month"}[p.By]
	period := ", " + p.Period
	p.Charts = []barChart{
		newBarChart("chart-revenue", "Revenue "+per, "Amount of rewarded purchases "+per+period+": "+
			money(int64(p.Revenue))+" in all.", labels, axisMoney, format.Denominator(p.Business),
			chartSeries{Name: "Revenue", Class: "bar-a", Values: revenue}),
		newBarChart("chart-visits", "Visits "+per, "Visits "+per+period+": "+count(p.Visits)+" in all.", labels, count, 1,
			chartSeries{Name: "Visits", Class: "bar-a", Values: visits}),
		newBarChart("chart-points", "Points issued and redeemed "+per, "Points issued and redeemed "+per+period+": "+
			count(p.PointsIssued)+" issued, "+count(p.PointsRedeemed)+" redeemed.", labels, count, 1,
			chartSeries{Name: "Issued", Class: "bar-a", Values: issued}, chartSeries{Name: "Redeemed", Class: "bar-b", Values: redeemed}),
		newBarChart("chart-members", "New members "+per, "Customers who joined "+per+period+": "+count(p.MembersNew)+" in all.",
			labels, count, 1, chartSeries{Name: "New members", Class: "bar-a", Values: members}),
	}
}

// bucketLabel writes a series' day (YYYY-MM-DD) or month (YYYY-MM) by
// the layouts given.
func bucketLabel(label, dayLayout, monthLayout string) string {
	if t, err := time.Parse(loyalty.DayFormat, label); err == nil {
		return t.Format(dayLayout)
	}
	if t, err := time.Parse("2006-01", label); err == nil {
		return t.Format(monthLayout)
	}
	return label
}

// thousands writes a count with thousands separators: 12,345.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "−" + s
	}
	return s
}

// percent writes basis points as a percentage with at most one decimal:
// 4250 is "42.5%", 1200 "12%".
func percent(bp int64) string {
	neg := bp < 0
	if neg {
		bp = -bp
	}
	tenths := (bp + 5) / 10
	s := thousands(tenths / 10)
	if r := tenths % 10; r != 0 {
		s += "." + strconv.FormatInt(r, 10)
	}
	if neg {
		s = "−" + s
	}
	return s + "%"
}
