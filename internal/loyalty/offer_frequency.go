package loyalty

import (
	"context"
	"slices"
	"sync"
	"time"
)

// The reference platform's offer frequencies (offer_frequency_id). The
// daily and weekly limits count in the business's time zone (Rules.TimeZone):
// a day runs from one local midnight to the next, a week is a calendar week
// from Monday's local midnight (the reference's docs do not say which week
// they mean). A day-and-time offer applies only on its weekdays between its
// peak hours, local time, as often as it applies.
const (
	OfferDaily   = 1
	OfferWeekly  = 2
	OfferDayTime = 3
)

// weeklyRule says what a week of a weekly offer is, for the error messages.
const weeklyRule = "a calendar week, from Monday 00:00 to Sunday 24:00 in the business's time zone"

// OfferPeriods are the use periods at one time of each limited frequency:
// an offer the customer used in the period its frequency names is used up.
type OfferPeriods struct {
	Day   string // the period of a daily offer
	Week  string // the period of a weekly offer
	Month string // the calendar month (earning rules' limits)
}

// UsePeriods returns the use periods at at in loc.
func UsePeriods(at time.Time, loc *time.Location) OfferPeriods {
	y, m, d := at.In(loc).Date()
	wd := (int(at.In(loc).Weekday()) + 6) % 7 // days since Monday
	// Dates in UTC: no daylight saving change moves a midnight there.
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return OfferPeriods{Day: "d" + day.Format(time.DateOnly), Week: "w" + day.AddDate(0, 0, -wd).Format(time.DateOnly),
		Month: "m" + day.Format("2006-01")}
}

// FrequencyPeriod is the period, at one time, in which a use of an offer
// of one limited frequency counts.
type FrequencyPeriod struct {
	Frequency int    // an offer_frequency_id that Offer.Limited counts
	Period    string // the use period of that frequency (Offer.UsePeriod)
}

// names are the periods of p, one per limited frequency.
func (p OfferPeriods) names() []string {
	var out []string
	for _, f := range p.ByFrequency() {
		out = append(out, f.Period)
	}
	return out
}

// limitedFrequencies are the frequencies whose uses are counted, in the
// order ByFrequency lists them.
var limitedFrequencies = []int{OfferOnce, OfferDaily, OfferWeekly}

// ByFrequency returns the use period of each limited frequency in p, one
// per frequency, always in the same order. A frequency it does not list
// (none, or day and time) counts no use.
func (p OfferPeriods) ByFrequency() []FrequencyPeriod {
	out := make([]FrequencyPeriod, len(limitedFrequencies))
	for i, f := range limitedFrequencies {
		out[i] = FrequencyPeriod{Frequency: f, Period: Offer{Frequency: f}.period(p)}
	}
	return out
}

// Limited reports whether the offer's uses are counted per customer (once
// ever, a day or a week), so that each use is recorded with its entry.
func (o Offer) Limited() bool {
	return slices.Contains(limitedFrequencies, o.Frequency)
}

// UsePeriod returns the period a use of a limited offer at at counts in:
// "" for once ever, else the local day or week of at in loc.
func (o Offer) UsePeriod(at time.Time, loc *time.Location) string {
	return o.period(UsePeriods(at, loc))
}

// period picks the period of the offer's frequency out of p.
func (o Offer) period(p OfferPeriods) string {
	switch o.Frequency {
	case OfferDaily:
		return p.Day
	case OfferWeekly:
		return p.Week
	}
	return ""
}

// InWindow reports whether a day-and-time offer applies at at, local time
// in loc: on one of its weekdays, from peak_from to peak_to (both
// minutes included). Every other offer is always in its window.
func (o Offer) InWindow(at time.Time, loc *time.Location) bool {
	if o.Frequency != OfferDayTime {
		return true
	}
	t := at.In(loc)
	wd := int(t.Weekday())
	if wd == 0 {
		wd = 7
	}
	hm := t.Format("15:04")
	for _, d := range o.Days {
		if d == wd {
			return o.PeakFrom <= hm && hm <= o.PeakTo
		}
	}
	return false
}

// zones caches the loaded time zones by name: a reward with points offers
// needs its business's zone, and loading one reads and parses a file.
var zones sync.Map

// zoneOf returns the named zone, UTC when the name is empty or unknown.
func zoneOf(name string) *time.Location {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "" || name == "Local" {
		loc = time.UTC
	}
	zones.Store(name, loc)
	return loc
}

// OfferFacts are a customer's part in some offers: the offers whose
// targets include the customer, and the use periods in which the
// customer used each (OfferFinder.CustomerOfferFacts).
type OfferFacts struct {
	Targets map[int64]bool
	Uses    map[int64][]string
}

// usedUp reports whether the customer used the limited offer o in the
// period of its frequency in p.
func (f OfferFacts) usedUp(o Offer, p OfferPeriods) bool {
	return o.Limited() && slices.Contains(f.Uses[o.ID], o.period(p))
}

// Why an offer did not apply to a reward (SkippedOffer.Why).
const (
	SkipInactive  = "inactive"  // disabled, not started or ended at the reward's time
	SkipWindow    = "window"    // a day-and-time offer outside its days and hours
	SkipBranch    = "branch"    // kept to other branches
	SkipTargeted  = "targeted"  // for its targets, and the customer is not one
	SkipUsed      = "used"      // limited, and used in its period by the customer
	SkipRange     = "range"     // the amount is outside its purchase range
	SkipOutranked = "outranked" // a multiplier, and a better one applied
)

// SkippedOffer is an offer that did not apply to a reward, and why.
type SkippedOffer struct {
	Offer Offer
	Why   string
}

// ApplicableOffers decides which of a business's points offers (all, as
// OfferFinder.PointsOffers reads them) apply to the reward e at its time,
// e.CreatedAt, in the business's time zone loc: the offers active then
// and in their day-and-time window, available at its branch (the main
// branch when it names none), open to its customer (a targeted offer:
// one of its targets) and not used up (a limited offer the customer used
// in its period). It reads the customer's part in an offer only for the
// offers that are targeted or limited, and the main branch only when an
// offer is kept to some branches. With why it also lists there the
// offers it left out and why (a reward, which needs no reasons, passes
// nil and copies no offer for them).
func ApplicableOffers(ctx context.Context, offers OfferFinder, businessID string, all []Offer, e *Transaction, loc *time.Location, why *[]SkippedOffer) ([]Offer, error) {
	var found []Offer
	skip := func(o Offer, reason string) {
		if why != nil {
			*why = append(*why, SkippedOffer{o, reason})
		}
	}
	var ask []int64
	branches := false
	for _, o := range all {
		switch {
		case !o.Active(e.CreatedAt):
			skip(o, SkipInactive)
			continue
		case !o.InWindow(e.CreatedAt, loc):
			skip(o, SkipWindow)
			continue
		}
		found = append(found, o)
		if o.Targeted || o.Limited() {
			ask = append(ask, o.ID)
		}
		branches = branches || len(o.BranchIDs) > 0
	}
	leave := func(reason func(Offer) string) {
		found = slices.DeleteFunc(found, func(o Offer) bool {
			if r := reason(o); r != "" {
				skip(o, r)
				return true
			}
			return false
		})
	}
	if branches {
		branch := e.BranchID
		if branch == "" {
			m, err := offers.MainBranch(ctx, businessID)
			if err != nil {
				return nil, err
			}
			branch = m.ID
		}
		leave(func(o Offer) string {
			if !o.AvailableAt(branch) {
				return SkipBranch
			}
			return ""
		})
	}
	if len(ask) == 0 || len(found) == 0 {
		return found, nil
	}
	periods := UsePeriods(e.CreatedAt, loc)
	facts, err := offers.CustomerOfferFacts(ctx, e.CustomerID, ask, periods.names())
	if err != nil {
		return nil, err
	}
	leave(func(o Offer) string {
		switch {
		case o.Targeted && !facts.Targets[o.ID]:
			return SkipTargeted
		case facts.usedUp(o, periods):
			return SkipUsed
		}
		return ""
	})
	return found, nil
}
