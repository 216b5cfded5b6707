package loyalty

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// PointFlows are the movements of points in a span of time, from the
// ledger: issued (every entry that added points, activations, expiries
// and reversals aside), activated (moved from pending to active), spent
// (every other entry that took points: redemptions, coupons, adjustments
// down, transfers sent), reversed (what reversals took back — a cancelled
// or returned reward — less what they gave back — a cancelled or
// refunded redemption: a reversal is neither issuing nor redeeming) and
// expired (breakage). Issued − Spent − Reversed − Expired is the change
// of the points outstanding.
type PointFlows struct {
	Issued, Activated, Spent, Reversed, Expired int64
	// The points the entries left outstanding: usable, and pending.
	Active, Pending int64
}

// PointFlowCodes say by type code which entries each flow of the points
// report sums (Flows is one entry's share): the store adds the entries
// up by these lists and decides nothing.
type PointFlowCodes struct {
	// Moves are the codes of entries that move points within a lot or out
	// of it by the program's own rules, neither issued nor spent: Issued
	// sums the points every other entry added, Spent those it took.
	Moves []int
	// Expired sums the points its entries took (breakage).
	Expired []int
	// Activated sums the pending points its entries made usable.
	Activated []int
	// Reversals are the codes of entries that undo another: Reversed sums
	// what they took less what they gave back.
	Reversals []int
}

// ReportFlowCodes are the points report's codes: activations and expiries
// are moves, the one expiring and the other activating points.
func ReportFlowCodes() PointFlowCodes {
	return PointFlowCodes{Moves: []int{TypeCodeActivation, TypeCodeExpiry}, Expired: []int{TypeCodeExpiry},
		Activated: []int{TypeCodeActivation}, Reversals: []int{TypeCodeCancellation, TypeCodeReturn, TypeCodeRefundRedeemed}}
}

// Flows returns what one entry of typeCode, changing the balance by points
// of which pending are pending, adds to each flow: Active and Pending are
// its change of the usable and pending points.
func (c PointFlowCodes) Flows(typeCode int, points, pending int64) PointFlows {
	f := PointFlows{Active: points - pending, Pending: pending}
	switch {
	case slices.Contains(c.Reversals, typeCode):
		f.Reversed = -points
	case !slices.Contains(c.Moves, typeCode):
		if points > 0 {
			f.Issued = points
		} else {
			f.Spent = -points
		}
	}
	if slices.Contains(c.Expired, typeCode) {
		f.Expired = -points
	}
	if slices.Contains(c.Activated, typeCode) {
		f.Activated = -pending
	}
	return f
}

// ReportPeriod is one row of the points report: the flows within the
// period and the points outstanding at its end.
type ReportPeriod struct {
	Start, End time.Time
	Flows      PointFlows // Active and Pending are the outstanding points at End
}

// PointsReport is the liability of a business's points over a span.
type PointsReport struct {
	From, To time.Time
	Group    string // "day" or "month"
	TimeZone string
	BranchID string
	Periods  []ReportPeriod
	Totals   PointFlows // the flows of the whole span; Active and Pending at To
}

// Report groupings and their most periods.
const (
	ReportDay       = "day"
	ReportMonth     = "month"
	maxReportDays   = 400
	maxReportMonths = 120
)

// Report sums the points a business issued, activated, spent and let
// expire, by day or month of its time zone, with what was outstanding at
// the end of each period. Query: from and to (dates, YYYY-MM-DD, in the
// business's time zone; to is included), group (day or month, default
// month) and branch.id.
func (s *PointsService) Report(ctx context.Context, b Business, q url.Values) (PointsReport, error) {
	rules, err := s.Store.Rules(ctx, b)
	if err != nil {
		return PointsReport{}, err
	}
	loc := rules.location()
	r := PointsReport{Group: q.Get("group"), TimeZone: loc.String(), BranchID: q.Get("branch.id")}
	v := Validation{}
	for name := range q {
		switch {
		case name == "from" || name == "to" || name == "group" || name == "branch.id":
		case strings.HasPrefix(name, "include") || strings.HasPrefix(name, "relationships"):
			// Read (and any name in them refused) by the HTTP layer.
		default:
			return r, Errorf(EBadRequest, "The points report has no parameter %s; it takes from, to, group and branch.id.", name)
		}
	}
	if r.Group == "" {
		r.Group = ReportMonth
	}
	if r.Group != ReportDay && r.Group != ReportMonth {
		v.Add("group", "The group must be day or month.")
	}
	today := s.Store.Now().In(loc)
	day := func(name string, def time.Time) time.Time {
		s := q.Get(name)
		if s == "" {
			return def
		}
		d, err := time.ParseInLocation("2006-01-02", s, loc)
		if err != nil {
			v.Add(name, "The "+name+" date must be written YYYY-MM-DD.")
		}
		return d
	}
	y, m, d := today.Date()
	to := day("to", time.Date(y, m, d, 0, 0, 0, 0, loc)).AddDate(0, 0, 1)
	from := day("from", time.Date(y, m-11, 1, 0, 0, 0, 0, loc))
	if err := v.Err(); err != nil {
		return r, err
	}
	var bounds []time.Time
	for at := from; at.Before(to); {
		bounds = append(bounds, at)
		if r.Group == ReportDay {
			at = time.Date(at.Year(), at.Month(), at.Day()+1, 0, 0, 0, 0, loc)
		} else {
			at = time.Date(at.Year(), at.Month()+1, 1, 0, 0, 0, 0, loc)
		}
		if len(bounds) > max(maxReportDays, maxReportMonths) {
			break
		}
	}
	switch {
	case !from.Before(to):
		return r, Invalid("from", "The from date must not be after the to date.")
	case r.Group == ReportDay && len(bounds) > maxReportDays:
		return r, Invalid("from", "A report by day covers at most 400 days.")
	case r.Group == ReportMonth && len(bounds) > maxReportMonths:
		return r, Invalid("from", "A report by month covers at most 120 months.")
	}
	bounds = append(bounds, to)
	r.From, r.To = from.UTC(), to.UTC()
	opening, per, err := s.Store.PointFlows(ctx, b.ID, r.BranchID, bounds, ReportFlowCodes())
	if err != nil {
		return r, err
	}
	active, pending := opening.Active, opening.Pending
	for i, f := range per {
		active += f.Active
		pending += f.Pending
		f.Active, f.Pending = active, pending
		r.Periods = append(r.Periods, ReportPeriod{Start: bounds[i].UTC(), End: bounds[i+1].UTC(), Flows: f})
		r.Totals.Issued += f.Issued
		r.Totals.Activated += f.Activated
		r.Totals.Spent += f.Spent
		r.Totals.Reversed += f.Reversed
		r.Totals.Expired += f.Expired
	}
	r.Totals.Active, r.Totals.Pending = active, pending
	return r, nil
}
