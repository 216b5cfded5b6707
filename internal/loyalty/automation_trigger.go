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
			return keyNeverVisited
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

// keyNeverVisited is a no-visit trigger's key for a customer who never
// visited.
const keyNeverVisited = "no visit since joining"

// notRun is how a pass at now leaves out the customers whose run of the
// occurrence it selects them for exists already (CustomerCriteria.NotRun),
// whom it would start nothing for, instead of trying each in a
// transaction of its own every minute: by the key when every candidate's
// is the same (sharedKey), else by the moment the key names (occurred).
// Nil for a completed punch card, keyed by a count: those customers are
// tried again.
func (t AutomationTrigger) notRun(automationID int64, now time.Time, loc *time.Location) *RunCriterion {
	if k, ok := t.sharedKey(now, loc); ok {
		return &RunCriterion{AutomationID: automationID, Key: k}
	}
	switch t.Type {
	case TriggerNoVisit:
		return &RunCriterion{AutomationID: automationID, Occurrence: OccurrenceLastVisit, Key: keyNeverVisited}
	case TriggerExpiring:
		return &RunCriterion{AutomationID: automationID, Occurrence: OccurrenceNextExpiry}
	case TriggerTierLost:
		return &RunCriterion{AutomationID: automationID, Occurrence: OccurrenceTierChanged}
	}
	return nil
}

// occurred is the moment of the candidate's that its key names, where the
// key is the candidate's own and tells its moments apart (one key per
// moment): the last visit of a lapse (zero for a customer who never
// visited), the first expiry of expiring points, the time a level was
// lost. Zero for the other triggers.
func (t AutomationTrigger) occurred(c Candidate) time.Time {
	switch t.Type {
	case TriggerNoVisit:
		return c.LastVisitAt
	case TriggerExpiring:
		return c.NextExpiry
	case TriggerTierLost:
		return c.TierChangedAt
	}
	return time.Time{}
}

// sharedKey is the key of every candidate a pass at now selects, when it
// does not depend on the candidate (ok false when it does).
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
