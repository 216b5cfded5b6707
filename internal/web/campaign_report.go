package web

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// A campaign's report, in plain words: what happened to its members, and
// what its recipients did against its holdout over the days it compares
// — the difference per member with its 95 % interval, said as a sentence
// and drawn (bars for each group's mean, and the interval against zero).
// The statistics are the domain's (CampaignReport); this file says them.

// campaignReportPage is the body of the campaign_report template.
type campaignReportPage struct {
	Campaign console.CampaignRow
	Status   string // "Sent Nov 12, 2026 at 09:30"
	How      string // channels and gift in words
	Figures  []reportFigure
	Channels string // the members reached by channel, in words
	Window   string // the days compared, in words; "" before it began
	Open     string // why the figures will change, while the window is open
	Metrics  []reportMetric
	Preview  previewView
	Cancel   string // the link to cancel a scheduled campaign
	Goes     string // when a scheduled campaign goes
}

// reportFigure is one count of the report.
type reportFigure struct {
	ID, Label, Value, Note string
}

// reportMetric is one measure compared: each group's mean per member as
// a bar, and the difference with its interval.
type reportMetric struct {
	ID, Title string
	Sentence  string
	Bars      []reportBar    // the recipients', then the holdout's
	Interval  *intervalChart // nil when the groups are too small
}

// reportBar is a group's mean as a bar of the chart: Width in hundredths
// of the longest.
type reportBar struct {
	Label, Value string
	Width        float64
}

// intervalChart draws a difference and its interval on an axis centred
// on zero, in a viewBox 100 wide: Zero, Low, High and Value are x's.
type intervalChart struct {
	Low, High, Value, Zero float64
	Label                  string // the same in words, for a screen reader
	Sure                   bool   // the interval leaves out zero
}

func (s *Server) campaignReport(w http.ResponseWriter, r *http.Request, a loyalty.Actor, row console.CampaignRow) error {
	id := strconv.FormatInt(row.ID, 10)
	rep, err := s.Marketing.CampaignReport(r.Context(), a, id)
	if err != nil {
		return err
	}
	b, loc, err := s.businessIn(r, a)
	if err != nil {
		return err
	}
	lr := campaignRowOf(row, loc)
	p := campaignReportPage{Campaign: row, Status: lr.When, How: lr.How}
	if rep.Offer != "" {
		p.How = channelWords(row.Channels) + " · a coupon each: " + rep.Offer
	}
	if row.State == loyalty.CampaignScheduled {
		p.Cancel, p.Goes = "/business/campaigns/"+id+"/delete", dayAndTime(row.SendAt, loc)
	}
	p.Figures, p.Channels = reportFigures(rep, row.Campaign)
	if !rep.From.IsZero() {
		p.Window = "Compared over the " + strconv.Itoa(row.ReportDays) + " days after it began: " +
			periodWords(rep.From.In(loc).Format(loyalty.DayFormat), rep.To.In(loc).Add(-time.Second).Format(loyalty.DayFormat)) + "."
		if !rep.Complete {
			now := time.Now().Add(b.ClockOffset)
			left := int(math.Ceil(rep.To.Sub(now).Hours() / 24))
			p.Open = "Not complete yet: " + strconv.Itoa(left) + " of the " + strconv.Itoa(row.ReportDays) +
				" days are still to come (until " + dayAndTime(rep.To, loc) + "). The figures will change until then."
		}
		money := func(x float64) string { return b.FormatMoney(loyalty.Money(math.Round(x * 100))) }
		plain := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
		p.Metrics = []reportMetric{
			reportMetricOf("spend", "Spend per member", rep, rep.Treated.Spend, rep.Holdout.Spend, rep.Spend, money, "spent", ""),
			reportMetricOf("visits", "Visits per member", rep, rep.Treated.Visits, rep.Holdout.Visits, rep.Visits, plain, "made", " visits"),
			reportMetricOf("points", "Points earned per member", rep, rep.Treated.Points, rep.Holdout.Points, rep.Points, plain, "earned", " points"),
		}
	}
	if p.Preview, err = s.previewOf(r, a, campaignFormOf(row.Campaign)); err != nil {
		return err
	}
	v := s.consoleView(r, a, row.Name)
	if n := campaignNotices[r.URL.Query().Get("notice")]; n != "" {
		v.Notice = n
	}
	v.Data = p
	s.render(w, r, http.StatusOK, "campaign_report", v)
	return nil
}

// reportFigures are the report's counts, and the members reached by
// channel in words.
func reportFigures(rep console.CampaignResults, c loyalty.Campaign) ([]reportFigure, string) {
	t := rep.Tally
	n := func(outcome string) string { return thousands(int64(t.Outcomes[outcome])) }
	out := []reportFigure{
		{"fig-sent", "Reached", n(loyalty.RecipientSent), "sent a message"},
		{"fig-holdout", "Held out", n(loyalty.RecipientHoldout), "got nothing, to compare with"},
		{"fig-no-consent", "Not agreed", n(loyalty.RecipientNoConsent), "did not agree to hear from you"},
		{"fig-no-contact", "No address", n(loyalty.RecipientNoContact), "agreed, but left no address for it"},
		{"fig-recent", "Skipped", n(loyalty.RecipientRecent), "reached by a campaign lately"},
		{"fig-delivered", "Delivered", thousands(int64(t.Delivered)), "e-mails and texts handed over"},
	}
	if c.SkipReachedDays > 0 {
		out[4].Note = "reached by a campaign in the last " + strconv.Itoa(c.SkipReachedDays) + " days"
	}
	if x := t.Outcomes[loyalty.RecipientPending]; x > 0 {
		out = append(out, reportFigure{"fig-pending", "Waiting", thousands(int64(x)), "still to be reached"})
	}
	if x := t.Outcomes[loyalty.RecipientFailed] + t.Outcomes[loyalty.RecipientGone]; x > 0 {
		out = append(out, reportFigure{"fig-failed", "Not reached", thousands(int64(x)), "left, or the gift was refused"})
	}
	switch {
	case c.GiftOfferID != 0:
		out = append(out, reportFigure{"fig-gifts", "Coupons given", thousands(int64(t.Gifts)), ""},
			reportFigure{"fig-gifts-used", "Coupons used", thousands(int64(t.GiftsUsed)), "of those given"})
	case c.GiftPoints > 0:
		out = append(out, reportFigure{"fig-gifts", "Gifts given", thousands(int64(t.Gifts)), thousands(c.GiftPoints) + " points each"})
	case c.GiftRuleID != 0:
		out = append(out, reportFigure{"fig-gifts-used", "Earned by the rule", thousands(int64(t.GiftsUsed)),
			"of " + thousands(int64(t.Gifts)) + " reached, within " + strconv.Itoa(c.GiftRuleDays) + " days"})
	}
	var by []string
	for _, ch := range []string{loyalty.CampaignEmail, loyalty.CampaignSMS, loyalty.CampaignPush} {
		if x := t.Channels[ch]; x > 0 {
			by = append(by, strings.ToLower(channelNames[ch])+": "+thousands(int64(x)))
		}
	}
	words := ""
	for i, s := range by {
		if i > 0 {
			words += " · "
		}
		words += s
	}
	return out, words
}

// reportMetricOf lays out one measure: its bars, its sentence ("Recipients
// spent $4.20 more per member than the holdout (95 % sure between $1.10
// and $7.30)") and its interval's chart.
func reportMetricOf(id, title string, rep console.CampaignResults, treated, holdout float64, d loyalty.Difference,
	format func(float64) string, verb, unit string) reportMetric {
	m := reportMetric{ID: id, Title: title}
	top := math.Max(math.Max(treated, holdout), 0)
	width := func(x float64) float64 {
		if top <= 0 || x <= 0 {
			return 0
		}
		return math.Round(x/top*1000) / 10
	}
	m.Bars = []reportBar{
		{Label: "Recipients (" + peopleCount(rep.Treated.Members) + ")", Value: format(treated) + unit, Width: width(treated)},
		{Label: "Holdout (" + peopleCount(rep.Holdout.Members) + ")", Value: format(holdout) + unit, Width: width(holdout)},
	}
	if !d.Set {
		m.Sentence = "Too few members to compare: each group needs two at least."
		if rep.Holdout.Members < 2 {
			m.Sentence = "The holdout has fewer than two members, so there is nothing to compare with: a larger segment, or a larger share held out, gives an answer."
		}
		return m
	}
	abs := math.Abs(d.Value)
	more, low, high := "more", math.Abs(d.Low), math.Abs(d.High)
	if d.Value < 0 {
		more, low, high = "less", math.Abs(d.High), math.Abs(d.Low)
	}
	sure := d.Low > 0 || d.High < 0
	if format(abs) == format(0) {
		m.Sentence = "Recipients " + verb + " the same per member as the holdout"
	} else {
		m.Sentence = "Recipients " + verb + " " + format(abs) + " " + more + unit + " per member than the holdout"
	}
	if sure {
		m.Sentence += " (95\u00a0% sure between " + format(low) + " and " + format(high) + ")."
	} else {
		m.Sentence += ", which could be chance: 95\u00a0% sure the difference is between " + signed(d.Low, format) + " and " + signed(d.High, format) + "."
	}
	span := math.Max(math.Max(math.Abs(d.Low), math.Abs(d.High)), 1e-9) * 1.1
	x := func(v float64) float64 { return math.Round((50+v/span*48)*10) / 10 }
	m.Interval = &intervalChart{Low: x(d.Low), High: x(d.High), Value: x(d.Value), Zero: 50, Sure: sure,
		Label: "The difference, " + signed(d.Value, format) + ", and its 95 % interval from " + signed(d.Low, format) +
			" to " + signed(d.High, format) + ", drawn against zero."}
	return m
}

// signed writes a difference with its sign: "−$1.10", "+$7.30".
func signed(x float64, format func(float64) string) string {
	switch s := format(math.Abs(x)); {
	case s == format(0):
		return s
	case x < 0:
		return "−" + s
	default:
		return "+" + s
	}
}
