package loyalty

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ClockInput is the body of POST /sandbox/clock: advance by an ISO 8601
// duration ("P30D", "P1M", "PT12H"), or move to a time; forward only.
type ClockInput struct {
	Advance Opt[string] `json:"advance"`
	To      Opt[string] `json:"to"`
}

// SandboxClock is a sandbox business's clock after a read or a move.
type SandboxClock struct {
	Now     time.Time
	Offset  time.Duration // ahead of the real clock
	Settled int           // activations and expiries the move wrote
}

// sandbox returns the business of a sandbox request, refusing a live one.
func (s *PointsService) sandbox(ctx context.Context, businessID string) (Business, error) {
	b, err := s.Store.Business(ctx, businessID)
	if err != nil {
		return b, err
	}
	if !b.Sandbox {
		return b, Errorf(EForbidden, "Only a sandbox business has a clock to read or move; this one is live.")
	}
	return b, nil
}

// Clock reads a sandbox business's clock.
func (s *PointsService) Clock(ctx context.Context, businessID string) (SandboxClock, error) {
	b, err := s.sandbox(ctx, businessID)
	if err != nil {
		return SandboxClock{}, err
	}
	return SandboxClock{Now: wallNow(s.Store).Add(b.ClockOffset), Offset: b.ClockOffset}, nil
}

// MoveClock moves a sandbox business's clock forward, first writing the
// activations and expiries that fall due meanwhile, each dated when it
// fell due, as they would have happened, ending the tier periods that
// end meanwhile and giving back the points of vouchers that expire
// meanwhile. Months and days are calendar
// ones in the business's time zone. Both read the business's offset
// from the business itself, so s may be on any clock (Services.ClockedBy).
func (s *PointsService) MoveClock(ctx context.Context, businessID string, in ClockInput) (SandboxClock, error) {
	b, err := s.sandbox(ctx, businessID)
	if err != nil {
		return SandboxClock{}, err
	}
	wall := wallNow(s.Store)
	now := wall.Add(b.ClockOffset)
	rules, err := s.Store.Rules(ctx, b)
	if err != nil {
		return SandboxClock{}, err
	}
	to, err := in.target(now, rules.location())
	if err != nil {
		return SandboxClock{}, err
	}
	// The notices due on the way go out even if their expiry is passed
	// too, as they would have, before the expiries are written.
	if _, err := NotifyDue(ctx, s.Store, b.ID, to, 200, true); err != nil {
		return SandboxClock{}, err
	}
	n, err := SettleDue(ctx, s.Store, b.ID, to, SettleOptions{})
	if err != nil {
		return SandboxClock{}, err
	}
	if _, err := RollTiers(ctx, s.Store, b.ID, to, 0); err != nil {
		return SandboxClock{}, err
	}
	returned, err := ReturnDueVouchers(ctx, s.Store, b.ID, to, 10000)
	n += returned
	if err != nil {
		return SandboxClock{}, err
	}
	returned, err = ReturnDueTransfers(ctx, s.Store, b.ID, to, 10000)
	n += returned
	if err != nil {
		return SandboxClock{}, err
	}
	offset := to.Sub(wall).Truncate(time.Second)
	if err := s.Store.SetClockOffset(ctx, b.ID, b.ClockOffset, offset); err != nil {
		return SandboxClock{}, err
	}
	return SandboxClock{Now: wall.Add(offset), Offset: offset, Settled: n}, nil
}

// target is the time a clock input moves to from now, checked forward.
func (in ClockInput) target(now time.Time, loc *time.Location) (time.Time, error) {
	adv, hasAdv := in.Advance.Value()
	ts, hasTo := in.To.Value()
	switch {
	case hasAdv == hasTo:
		return now, Invalid("advance", `Send {"advance": "P30D"} (an ISO 8601 duration) or {"to": "2027-01-31T00:00:00+00:00"}.`)
	case hasAdv:
		to, ok := addISODuration(now.In(loc), adv)
		if !ok || !to.After(now) {
			return now, Invalid("advance", "The advance must be a positive ISO 8601 duration such as P30D, P1M or PT12H.")
		}
		return to.UTC(), nil
	default:
		to, err := ParseTime(ts)
		if err != nil {
			return now, Invalid("to", "The to field must be a date-time such as 2027-01-31T00:00:00+00:00.")
		}
		if !to.After(now) {
			return now, Invalid("to", "The clock only moves forward: to must be after the business's now, "+FormatTime(now)+".")
		}
		return to.UTC(), nil
	}
}

var isoDuration = regexp.MustCompile(`^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)

// addISODuration adds an ISO 8601 duration to t: years, months, weeks and
// days on the calendar of t's location, then hours, minutes and seconds.
func addISODuration(t time.Time, s string) (time.Time, bool) {
	m := isoDuration.FindStringSubmatch(s)
	if m == nil || s == "P" || strings.HasSuffix(s, "T") {
		return t, false
	}
	var n [7]int
	for i := range n {
		if m[i+1] == "" {
			continue
		}
		v, err := strconv.Atoi(m[i+1])
		if err != nil || v > 100_000 {
			return t, false
		}
		n[i] = v
	}
	t = t.AddDate(n[0], n[1], 7*n[2]+n[3])
	return t.Add(time.Duration(n[4])*time.Hour + time.Duration(n[5])*time.Minute + time.Duration(n[6])*time.Second), true
}
