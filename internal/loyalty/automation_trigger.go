package loyalty

import (
	"strconv"
	"time"
)

// criteria is the customers a trigger selects at now (days in loc).
func (t AutomationTrigger) criteria(now time.Time, loc *time.Location) CustomerCriteria {
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	switch t.Type {
	case TriggerBirthday:
		d := today.AddDate(0, 0, t.Days)
		days := []string{d.Format("01-02")}
		if d.Month() == time.February && d.Day() == 28 && !isLeap(d.Year()) {
			days = append(days, "02-29") // a leap-day birthday is kept on the 28th
		}
		return CustomerCriteria{BirthDays: days}
	case TriggerJoined:
		day := today.AddDate(0, 0, -t.Days)
		return CustomerCriteria{JoinedFrom: day, JoinedBefore: day.AddDate(0, 0, 1)}
	case TriggerNoVisit:
		since := now.Add(-time.Duration(t.Days) * 24 * time.Hour)
		return CustomerCriteria{NoVisitSince: since, JoinedBefore: since}
	case TriggerNthVisit:
		n := int64(t.Count)
		return CustomerCriteria{Visits: &LedgerSum{Min: &n, Max: &n}}
	case TriggerExpiring:
		return CustomerCriteria{Expiring: &ExpiringCriterion{From: now, To: now.Add(time.Duration(t.Days) * 24 * time.Hour),
			States: []string{LotActive, LotPending}}}
	case TriggerFirstPurchase:
		one := int64(1)
		return CustomerCriteria{Visits: &LedgerSum{Min: &one, Max: &one}}
	}
	return CustomerCriteria{} // tier_reached, tier_lost and card_completed: made by the runner, which reads the program
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// key names the occurrence of the trigger a candidate is selected for:
// the year of the birthday, the lapse since the last visit, or the one
// time a customer joins or reaches a visit.
func (t AutomationTrigger) key(c Candidate, now time.Time, loc *time.Location) string {
	if k, ok := t.sharedKey(now, loc); ok {
		return k
	}
	switch t.Type {
	case TriggerNoVisit:
		if c.LastVisitAt.IsZero() {
			return "no visit since joining"
		}
		return "no visit since " + FormatTime(c.LastVisitAt)
	case TriggerTierLost:
		// each loss: a level regained and lost again fires again
		return "lost level " + strconv.FormatInt(t.LevelID, 10) + " at " + FormatTime(c.TierChangedAt)
	case TriggerExpiring:
		return "points expiring " + FormatTime(c.NextExpiry)
	case TriggerCardCompleted:
		return "card completed " + strconv.FormatInt(c.Completed, 10)
	}
	return t.Type
}

// sharedKey is the key of every candidate a pass at now selects, when it
// does not depend on the candidate (ok false when it does): a pass then
// leaves out the customers with a run under it (CustomerCriteria.NotRun),
// whom it would start nothing for, instead of trying each in a
// transaction of its own every minute.
func (t AutomationTrigger) sharedKey(now time.Time, loc *time.Location) (string, bool) {
	switch t.Type {
	case TriggerBirthday:
		return "birthday " + now.In(loc).AddDate(0, 0, t.Days).Format("2006"), true
	case TriggerTierReached:
		return "level " + strconv.FormatInt(t.LevelID, 10), true
	case TriggerJoined, TriggerNthVisit, TriggerFirstPurchase:
		return t.Type, true
	}
	return "", false
}
