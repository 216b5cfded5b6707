package loyalty

import "time"

// The dashboard's insights: what sold the program in a period, read from
// the ledger (rankings and what members did) beside the rollups' figures.
//
// The rules, applied to the ledger entries of the period (and branch):
//   - an entry a cancellation reversed counts for nothing, and neither does
//     the cancellation;
//   - a reward redeemed counts its catalog items' quantities, per reward;
//   - an offer is used by a rewarded purchase it gave points to (the
//     entry's offer) and by the redemption of one of its coupons; issuing
//     a coupon is not a use;
//   - a customer's spend is the amount of their rewarded purchases, their
//     visits the entries' visits;
//   - a member who visited at least twice is a repeat visitor.

// InsightQuery selects the entries of a period: from Start up to End (not
// included), at a branch ("" for all); rankings list up to Limit.
type InsightQuery struct {
	Start, End time.Time
	BranchID   string
	Limit      int
}

// RankedReward is a reward of the catalog with the units redeemed.
type RankedReward struct {
	ID       int64
	Title    string
	Redeemed int64
}

// RankedOffer is an offer with its uses.
type RankedOffer struct {
	ID    int64
	Title string
	Uses  int64
}

// RankedCustomer is a customer with their spend and visits.
type RankedCustomer struct {
	ID, FirstName, LastName, Email, Phone string
	Spend                                 Money
	Visits                                int64
}

// Name is how the dashboard names the customer: their name, else their
// e-mail address or phone number, else their id.
func (c RankedCustomer) Name() string {
	for _, s := range []string{joinName(c.FirstName, c.LastName), c.Email, c.Phone} {
		if s != "" {
			return s
		}
	}
	return c.ID
}

func joinName(first, last string) string {
	switch {
	case first == "":
		return last
	case last == "":
		return first
	}
	return first + " " + last
}

// MemberActivity is what the members who came in a period did.
type MemberActivity struct {
	Visitors  int64 // members with a visit
	Repeaters int64 // members with two visits or more
	Spenders  int64 // members with a rewarded purchase
	Spend     Money // the amount of their rewarded purchases
}

// RepeatRate is the share of visitors who came back, in basis points
// (hundredths of a percent); 0 without visitors.
func (m MemberActivity) RepeatRate() int64 {
	if m.Visitors <= 0 {
		return 0
	}
	return m.Repeaters * 10000 / m.Visitors
}

// AverageSpend is what a member who bought spent in the period, rounded
// down to the minor unit; 0 without spenders.
func (m MemberActivity) AverageSpend() Money {
	if m.Spenders <= 0 {
		return 0
	}
	return m.Spend / Money(m.Spenders)
}

// Insights are the rankings and member activity of a period.
type Insights struct {
	Rewards   []RankedReward   // most redeemed first
	Offers    []RankedOffer    // most used first
	Customers []RankedCustomer // most spend first
	Activity  MemberActivity
}

// TierShare is a level of the tier program with its members.
type TierShare struct {
	Name    string
	Members int64
}

// TierMix is how many members each level of t holds, as the tier keeper
// last announced them: announced counts live members by level id (0 for
// none), and the members it holds no row for hold the level a new
// customer holds (Tier.base). Members without a level come last, as
// "No level", when there are any.
func TierMix(t Tier, announced map[int64]int64, members int64) []TierShare {
	counts := make([]int64, len(t.Levels))
	var none, known int64
	for id, n := range announced {
		known += n
		if i := t.levelIndex(id); i >= 0 {
			counts[i] += n
		} else {
			none += n
		}
	}
	if rest := members - known; rest > 0 {
		if i := t.base(); i >= 0 {
			counts[i] += rest
		} else {
			none += rest
		}
	}
	out := make([]TierShare, 0, len(t.Levels)+1)
	for i, l := range t.Levels {
		out = append(out, TierShare{Name: l.Name, Members: counts[i]})
	}
	if none > 0 {
		out = append(out, TierShare{Name: "No level", Members: none})
	}
	return out
}

// PreviousPeriod is the period a dashboard compares from–to with (days
// as DayFormat): for a period that starts on the first of a month, the
// same days of the month(s) before (October 1–31 with September 1–30,
// this month so far with the same days of last month, a day past a
// shorter month's end taken as its last day); for any other period, as
// many days, ending the day before from.
func PreviousPeriod(from, to string) (string, string, error) {
	f, err := time.Parse(DayFormat, from)
	if err != nil {
		return "", "", err
	}
	t, err := time.Parse(DayFormat, to)
	if err != nil {
		return "", "", err
	}
	if f.Day() == 1 {
		months := (t.Year()-f.Year())*12 + int(t.Month()-f.Month()) + 1
		pf := f.AddDate(0, -months, 0)
		// The same day as to, months before, or the last day of that month.
		last := time.Date(t.Year(), t.Month()-time.Month(months)+1, 0, 0, 0, 0, 0, time.UTC)
		pt := time.Date(last.Year(), last.Month(), min(t.Day(), last.Day()), 0, 0, 0, 0, time.UTC)
		if t.AddDate(0, 0, 1).Day() == 1 {
			pt = last // a whole month's end: the whole month before
		}
		return pf.Format(DayFormat), pt.Format(DayFormat), nil
	}
	days := int(t.Sub(f).Hours()/24+0.5) + 1
	return f.AddDate(0, 0, -days).Format(DayFormat), f.AddDate(0, 0, -1).Format(DayFormat), nil
}

// DayRange is the instants of a period of days in the time zone tz: from
// the start of from up to the start of the day after to.
func DayRange(from, to, tz string) (time.Time, time.Time, error) {
	loc := BusinessLocation(tz)
	f, err := time.ParseInLocation(DayFormat, from, loc)
	if err != nil {
		return f, f, err
	}
	t, err := time.ParseInLocation(DayFormat, to, loc)
	if err != nil {
		return f, f, err
	}
	return f, t.AddDate(0, 0, 1), nil
}

// Change is the change from prev to cur in basis points of prev, and
// whether it is defined (prev is not 0).
func Change(cur, prev int64) (int64, bool) {
	if prev == 0 {
		return 0, false
	}
	d := (cur - prev) * 10000 / prev
	if prev < 0 {
		d = -d
	}
	return d, true
}
