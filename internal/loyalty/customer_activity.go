package loyalty

import "time"

// Activity is what a ledger entry changes in its customer's summary of
// activity: the last visit, and the running visits and spend that
// segments select by. The store adds it to the customer's row in the
// transaction that writes the entry, on every road an entry takes, so
// the summary always agrees with the ledger.
type Activity struct {
	// Visits and Spend are added to the customer's totals: a reward's
	// visit and spend, taken back by its return or cancellation (the
	// spend tiers count, TierAmount).
	Visits int64
	Spend  Money
	// VisitAt is the time of the visit the entry is, nil when it is none;
	// the customer's last visit moves to it when it is later, at
	// VisitBranch ("" for an entry naming no branch: the main one).
	VisitAt     *time.Time
	VisitBranch string
}

// EntryActivity is e's activity.
func EntryActivity(e *Transaction) Activity {
	a := Activity{Visits: e.Visits, Spend: e.TierAmount}
	if e.Visits > 0 {
		at := e.CreatedAt.UTC()
		a.VisitAt, a.VisitBranch = &at, e.BranchID
	}
	return a
}
