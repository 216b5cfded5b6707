package loyalty

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// DashboardDestination is the event cursor of the dashboard's rollup
// follower (see EventStore.ClaimCursor).
const DashboardDestination = "dashboard"

// DayFormat is how a day of the dashboard is written: a date in the
// business's time zone.
const DayFormat = "2006-01-02"

// Figures are the dashboard's counts of a day (or of a period). Points
// and money are exact integers; Revenue is in minor units.
//
// The rules, applied to every ledger entry (see EntryFigures):
//   - Visits: the entry's visits (a cancellation's are negative).
//   - Revenue: the amount of reward entries (rewarded purchases), less the
//     amount of a cancelled reward on the day of its cancellation.
//   - PointsIssued: points earned (positive points of any entry but a
//     cancellation or a refund of redeemed points), less points taken
//     back by a cancellation, a return, an adjustment or an expiry.
//   - PointsRedeemed: points spent (negative points of a redemption or a
//     coupon), less points given back by a cancellation or a refund.
//
// So PointsIssued − PointsRedeemed is every entry's points: the change of
// the outstanding balance.
type Figures struct {
	MembersNew     int64 // customers who joined (less those since deleted)
	Visits         int64
	Revenue        Money
	PointsIssued   int64
	PointsRedeemed int64
	ReferralsPaid  int64
}

// Add adds o to f.
func (f *Figures) Add(o Figures) {
	f.MembersNew += o.MembersNew
	f.Visits += o.Visits
	f.Revenue += o.Revenue
	f.PointsIssued += o.PointsIssued
	f.PointsRedeemed += o.PointsRedeemed
	f.ReferralsPaid += o.ReferralsPaid
}

// spending are the intents whose negative points a customer spent.
var spending = map[string]bool{IntentRedeem: true, IntentGetCoupon: true, IntentClaimCoupon: true}

// givingBack are the intents whose positive points undo a spending.
var givingBack = map[string]bool{IntentCancellation: true, IntentRefund: true}

// EntryFigures are what a ledger entry adds to its day; reversed is the
// entry a cancellation reverses (nil for any other entry).
func EntryFigures(e Transaction, reversed *Transaction) Figures {
	f := Figures{Visits: e.Visits}
	switch {
	case e.Intent == IntentReward:
		f.Revenue = e.Amount
	case e.Intent == IntentCancellation && reversed != nil && reversed.Intent == IntentReward:
		f.Revenue = -e.Amount
	}
	switch {
	case e.Points > 0 && givingBack[e.Intent]:
		f.PointsRedeemed = -e.Points
	case e.Points < 0 && spending[e.Intent]:
		f.PointsRedeemed = -e.Points
	default:
		f.PointsIssued = e.Points
	}
	return f
}

// DayFold is what one event adds to the rollups: figures on a day at a
// branch ("" for none), and the customer's visit on that day when the
// entry counted visits.
type DayFold struct {
	Day      string
	BranchID string
	Figures  Figures
	Visitor  string // the customer who visited on Day, if any
}

// eventRef is the part of an event's data the fold reads.
type eventRef struct {
	CreatedAt string `json:"created_at"`
}

// FoldEvent returns what an event adds to the rollups of its business,
// with days in loc. Entries are read from the ledger by id (an entry's
// branch and the intent a cancellation reverses are not in the event),
// and dated by their own time (an imported entry by when it happened).
func FoldEvent(ctx context.Context, r DashboardReader, loc *time.Location, e Event) ([]DayFold, error) {
	var ref eventRef
	switch e.Type {
	case EventCustomerCreated, EventCustomerDeleted:
		if err := json.Unmarshal(e.Data, &ref); err != nil {
			return nil, fmt.Errorf("dashboard: event %s: %w", e.ID, err)
		}
	}
	switch e.Type {
	case EventTransactionCreated:
		id, err := e.Entry()
		if err != nil {
			return nil, err
		}
		entry, err := r.Entry(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("dashboard: entry %d: %w", id, err)
		}
		var reversed *Transaction
		if entry.ReversesID != 0 {
			orig, err := r.Entry(ctx, entry.ReversesID)
			if err != nil {
				return nil, fmt.Errorf("dashboard: entry %d: %w", entry.ReversesID, err)
			}
			reversed = &orig
		}
		fold := DayFold{Day: entry.CreatedAt.In(loc).Format(DayFormat), BranchID: entry.BranchID, Figures: EntryFigures(entry, reversed)}
		if entry.Visits > 0 {
			fold.Visitor = entry.CustomerID
		}
		return []DayFold{fold}, nil
	case EventCustomerCreated, EventCustomerDeleted:
		// A deleted customer no longer counts among those who joined that day.
		joined, err := time.Parse(time.RFC3339, ref.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("dashboard: event %s: created_at: %w", e.ID, err)
		}
		n := int64(1)
		if e.Type == EventCustomerDeleted {
			n = -1
		}
		return []DayFold{{Day: joined.In(loc).Format(DayFormat), Figures: Figures{MembersNew: n}}}, nil
	case EventReferralPaid:
		return []DayFold{{Day: e.CreatedAt.In(loc).Format(DayFormat), Figures: Figures{ReferralsPaid: 1}}}, nil
	}
	return nil, nil
}

// BusinessLocation is the time zone of a business's days: its profile's,
// UTC when unset or unknown.
func BusinessLocation(name string) *time.Location {
	if loc, err := time.LoadLocation(name); err == nil && name != "" && name != "Local" {
		return loc
	}
	return time.UTC
}

// FoldFunc returns what an event adds to the rollups, with days in the
// business's time zone tz, reading what it needs through r.
type FoldFunc func(ctx context.Context, r DashboardReader, tz string, e Event) ([]DayFold, error)

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
	Redemption         PointValue   // the business's redemption value (Rules.Redemption)
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
