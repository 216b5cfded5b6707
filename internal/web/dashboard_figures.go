package web

import (
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// kpi is a key figure of the dashboard: its value, and beside it the
// previous period's with the change.
type kpi struct {
	ID, Label, Value string
	Change           string // "+12%", "−5%", "no change"; "" when not compared or nothing before
	Trend            string // "up", "down" or "flat", for the change's colour
	Previous         string // "on the previous 30 days ($1,528.00)"
	Note             string // what the figure is, when the label does not say
}

// kpis are the dashboard's key figures, most asked first: what members
// spent and how often they came, then points and what is owed.
func (p *dashboardPage) kpis() []kpi {
	b := p.Business
	money := func(m loyalty.Money) string { return format.Money(m, b) }
	cur, prev := p.Insights.Activity, p.PrevActivity
	out := []kpi{
		p.compared("kpi-revenue", "Revenue", int64(p.Revenue), int64(p.Previous.Revenue), money(p.Revenue), money(p.Previous.Revenue)),
		p.compared("kpi-visits", "Visits", p.Visits, p.Previous.Visits, thousands(p.Visits), thousands(p.Previous.Visits)),
		p.compared("kpi-new-members", "New members", p.MembersNew, p.Previous.MembersNew, thousands(p.MembersNew), thousands(p.Previous.MembersNew)),
		p.compared("kpi-average-spend", "Average spend", int64(cur.AverageSpend()), int64(prev.AverageSpend()),
			money(cur.AverageSpend()), money(prev.AverageSpend())),
		p.compared("kpi-repeat", "Repeat visits", cur.RepeatRate(), prev.RepeatRate(), percent(cur.RepeatRate()), percent(prev.RepeatRate())),
		p.compared("kpi-issued", "Points issued", p.PointsIssued, p.Previous.PointsIssued, thousands(p.PointsIssued), thousands(p.Previous.PointsIssued)),
		p.compared("kpi-redeemed", "Points redeemed", p.PointsRedeemed, p.Previous.PointsRedeemed, thousands(p.PointsRedeemed),
			thousands(p.Previous.PointsRedeemed)),
	}
	out[0].Note = "rewarded purchases"
	out[3].Note = "per member who bought"
	out[4].Note = "of members who came, came again"
	liability := kpi{ID: "kpi-liability", Label: "Points liability", Value: money(p.Liability),
		Note: thousands(p.Outstanding) + " points held today"}
	if p.PointValue.Redeeming() {
		liability.Note += ", at " + money(p.PointValue.Value) + " for " + thousands(p.PointValue.Points) + " points"
		if p.ByRedemption {
			liability.Note += " (your redemption value)"
		}
	} else {
		liability.Note += "; no redemption value is set"
	}
	return append(out, liability)
}

// compared is a key figure beside the previous period's.
func (p *dashboardPage) compared(id, label string, cur, prev int64, value, before string) kpi {
	k := kpi{ID: id, Label: label, Value: value, Previous: "on " + p.Against + " (" + before + ")"}
	switch d, ok := loyalty.Change(cur, prev); {
	case !ok && cur == 0:
		k.Change, k.Trend, k.Previous = "no change", "flat", "on "+p.Against
	case !ok:
		k.Trend, k.Previous = "up", "none on "+p.Against
	case d == 0:
		k.Change, k.Trend = "no change", "flat"
	case d > 0:
		k.Change, k.Trend = "+"+percent(d), "up"
	default:
		k.Change, k.Trend = percent(d), "down"
	}
	return k
}

// dayWords writes a day (YYYY-MM-DD) as "Oct 1", with the year when
// withYear.
func dayWords(day string, withYear bool) string {
	t, err := time.Parse(loyalty.DayFormat, day)
	if err != nil {
		return day
	}
	if withYear {
		return t.Format("Jan 2, 2006")
	}
	return t.Format("Jan 2")
}

// periodWords writes a period: "Oct 1 – 30, 2026", "Sep 28 – Oct 4,
// 2026", "Dec 1, 2025 – Jan 31, 2026", or a single day.
func periodWords(from, to string) string {
	f, err1 := time.Parse(loyalty.DayFormat, from)
	t, err2 := time.Parse(loyalty.DayFormat, to)
	switch {
	case err1 != nil || err2 != nil:
		return from + " – " + to
	case from == to:
		return t.Format("Jan 2, 2006")
	case f.Year() != t.Year():
		return f.Format("Jan 2, 2006") + " – " + t.Format("Jan 2, 2006")
	case f.Month() == t.Month():
		return f.Format("Jan 2") + " – " + t.Format("2, 2006")
	}
	return f.Format("Jan 2") + " – " + t.Format("Jan 2, 2006")
}

// comparedWords names the previous period, long ("September 2026", "the
// previous 30 days", else its days) and short for the figures ("Sep
// 2026", "the previous 30 days", else its days).
func comparedWords(from, to, prevFrom, prevTo string) (string, string) {
	pf, err1 := time.Parse(loyalty.DayFormat, prevFrom)
	pt, err2 := time.Parse(loyalty.DayFormat, prevTo)
	f, err3 := time.Parse(loyalty.DayFormat, from)
	if err1 != nil || err2 != nil || err3 != nil {
		return prevFrom + " – " + prevTo, prevFrom + " – " + prevTo
	}
	switch {
	case pf.Day() == 1 && pt.AddDate(0, 0, 1).Day() == 1 && pf.Month() == pt.Month() && pf.Year() == pt.Year():
		return pt.Format("January 2006"), pt.Format("Jan 2006")
	case pt.AddDate(0, 0, 1).Equal(f):
		days := int(pt.Sub(pf).Hours()/24+0.5) + 1
		if days == 1 {
			return "the day before", "the day before"
		}
		w := "the previous " + strconv.Itoa(days) + " days"
		return w, w
	}
	w := periodWords(prevFrom, prevTo)
	return w, w
}

// tierRow is a level of the tier mix with its share of the members.
type tierRow struct {
	loyalty.TierShare
	Count, Share string
	Max          int64
}

// tierRows writes the tier mix's counts and shares.
func tierRows(shares []loyalty.TierShare) []tierRow {
	var total int64
	for _, s := range shares {
		total += s.Members
	}
	out := make([]tierRow, 0, len(shares))
	for _, s := range shares {
		r := tierRow{TierShare: s, Count: thousands(s.Members), Max: max(total, 1)}
		if total > 0 {
			r.Share = percent(s.Members * 10000 / total)
		}
		out = append(out, r)
	}
	return out
}
