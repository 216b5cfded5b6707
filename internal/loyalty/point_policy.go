package loyalty

import (
	"context"
	"strings"
	"time"
)

// Units of PointsExpiry.
const (
	ExpireDays   = "days"
	ExpireMonths = "months"
)

// PointsExpiry is how long earned points stay usable: Count days or
// months after the day they were earned, to the end of that day or
// month in the business's time zone. The zero value never expires.
type PointsExpiry struct {
	Unit  string // "", ExpireDays or ExpireMonths
	Count int
}

// Never reports whether points never expire.
func (x PointsExpiry) Never() bool { return x.Unit == "" || x.Count <= 0 }

// PointsPolicyNote is what a change of the policy says about the points
// already earned.
const PointsPolicyNote = "A change of points_expire_after, pending_days or time_zone applies to points earned after it; " +
	"points already earned keep the activation and expiry they were given."

// PointsTerms are the activation and expiry of the points of one entry.
type PointsTerms struct {
	ActivatesAt time.Time // when they become usable; at or before the entry's time for none pending
	ExpiresAt   time.Time // when they stop being usable; zero for never
	NoticeAt    time.Time // when the customer is told they expire soon; zero for never
}

// location is the rules' time zone, UTC when none is set or it is unknown.
func (r Rules) location() *time.Location {
	if loc, err := time.LoadLocation(r.TimeZone); err == nil && r.TimeZone != "" {
		return loc
	}
	return time.UTC
}

// Terms returns when the points an entry of intent earns at t activate
// and expire under the rules. Only a reward's points are pending (a
// purchase can be returned within pending_days); every earning expires by
// the policy. Days are calendar days in the business's time zone, so a
// change of daylight saving time moves neither the activation's wall-clock
// time nor the expiry's midnight.
func (r Rules) Terms(intent string, t time.Time) PointsTerms {
	loc := r.location()
	local := t.In(loc)
	out := PointsTerms{ActivatesAt: t}
	if intent == IntentReward && r.PendingDays > 0 {
		out.ActivatesAt = local.AddDate(0, 0, r.PendingDays).UTC()
	}
	if r.PointsExpireAfter.Never() {
		return out
	}
	y, m, d := local.Date()
	switch r.PointsExpireAfter.Unit {
	case ExpireDays:
		// The end of the day Count days later is the start of the next.
		out.ExpiresAt = time.Date(y, m, d+r.PointsExpireAfter.Count+1, 0, 0, 0, 0, loc).UTC()
	case ExpireMonths:
		out.ExpiresAt = time.Date(y, m+time.Month(r.PointsExpireAfter.Count)+1, 1, 0, 0, 0, 0, loc).UTC()
	}
	if r.ExpiryNoticeDays > 0 {
		// The business's midnight N days before; not before the points were earned.
		out.NoticeAt = maxTime(out.ExpiresAt.In(loc).AddDate(0, 0, -r.ExpiryNoticeDays).UTC(), t)
	}
	return out
}

// ExpiryInput is points_expire_after in a PATCH /rules: {"days": N} or
// {"months": N}; null for never.
type ExpiryInput struct {
	Days   Opt[int] `json:"days"`
	Months Opt[int] `json:"months"`
}

// PointsPolicyInput are the fields of PATCH /rules that set the life of
// points.
type PointsPolicyInput struct {
	PointsExpireAfter Opt[ExpiryInput] `json:"points_expire_after"`
	PendingDays       Opt[int]         `json:"pending_days"`
	TimeZone          Opt[string]      `json:"time_zone"`
	ExpiryNoticeDays  Opt[int]         `json:"expiry_notice_days"`
	// TransferMaxPointsPerDay limits what a member may send others a day
	// (0 or null: no limit).
	TransferMaxPointsPerDay Opt[int64] `json:"transfer_max_points_per_day"`
}

// apply validates the policy fields sent and merges them into r.
func (in PointsPolicyInput) apply(v Validation, r *Rules) {
	if in.PointsExpireAfter.Null {
		r.PointsExpireAfter = PointsExpiry{}
	} else if x, ok := in.PointsExpireAfter.Value(); ok {
		days, hasDays := x.Days.Value()
		months, hasMonths := x.Months.Value()
		switch {
		case hasDays == hasMonths:
			v.Add("points_expire_after", `Send {"days": N} or {"months": N}, or null for points that never expire.`)
		case hasDays && (days < 1 || days > 3650):
			v.Add("points_expire_after.days", "The days must be between 1 and 3650.")
		case hasMonths && (months < 1 || months > 120):
			v.Add("points_expire_after.months", "The months must be between 1 and 120.")
		case hasDays:
			r.PointsExpireAfter = PointsExpiry{Unit: ExpireDays, Count: days}
		default:
			r.PointsExpireAfter = PointsExpiry{Unit: ExpireMonths, Count: months}
		}
	}
	if n, ok := in.PendingDays.Value(); ok {
		if n < 0 || n > 365 {
			v.Add("pending_days", "The pending days must be between 0 and 365.")
		} else {
			r.PendingDays = n
		}
	} else if in.PendingDays.Null {
		v.Add("pending_days", "The pending days may not be null; 0 makes points usable at once.")
	}
	if n, ok := in.ExpiryNoticeDays.Value(); ok {
		if n < 0 || n > 365 {
			v.Add("expiry_notice_days", "The expiry notice days must be between 0 and 365 (0 sends no notice).")
		} else {
			r.ExpiryNoticeDays = n
		}
	} else if in.ExpiryNoticeDays.Null {
		v.Add("expiry_notice_days", "The expiry notice days may not be null; 0 sends no notice.")
	}
	if n, ok := in.TransferMaxPointsPerDay.Value(); ok {
		if n < 0 || n > maxPoints {
			v.Add("transfer_max_points_per_day", "The daily transfer limit must be a whole number of points, 0 for none.")
		} else {
			r.TransferMaxPointsPerDay = n
		}
	} else if in.TransferMaxPointsPerDay.Null {
		r.TransferMaxPointsPerDay = 0
	}
	if tz, ok := in.TimeZone.Value(); ok {
		tz = strings.TrimSpace(tz)
		if _, err := time.LoadLocation(tz); err != nil || tz == "" || tz == "Local" {
			v.Add("time_zone", "Enter a time zone by its IANA name, such as America/New_York or Europe/Paris.")
		} else {
			r.TimeZone = tz
		}
	} else if in.TimeZone.Null {
		v.Add("time_zone", "The time zone may not be null.")
	}
}

// settle sets the terms of the lot an earning entry opens. A reward whose
// points are pending counts towards tiers when they activate (the
// activation entry carries them), not now.
func (r Rules) settle(e *Transaction) {
	if e.Points <= 0 || e.ReversesID != 0 {
		return
	}
	e.Terms = r.Terms(e.Intent, e.CreatedAt)
	if e.Terms.ActivatesAt.After(e.CreatedAt) {
		e.Pending, e.TierPoints = e.Points, 0
	} else {
		e.Pending = 0
	}
}

// appendEarning appends an entry that may earn points, with the terms of
// its lot under the business's rules.
func appendEarning(ctx context.Context, tx Tx, b Business, e *Transaction) error {
	if e.Points > 0 && e.ReversesID == 0 {
		rules, err := rulesOf(ctx, tx, b)
		if err != nil {
			return err
		}
		rules.settle(e)
	}
	return appendEntry(ctx, tx, e)
}
