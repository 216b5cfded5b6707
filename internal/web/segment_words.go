package web

import (
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// segmentWords says what a segment's filter selects, one condition a
// line, as the merchant would ("Has not visited in the last 60 days",
// "Spent at least $20.00 in the last 30 days").
func segmentWords(f loyalty.SegmentFilter, c console.SegmentChoices, b loyalty.Business, loc *time.Location) []string {
	var out []string
	add := func(s string) { out = append(out, s) }
	n := func(x int64) string { return thousands(x) }
	times := func(x int64) string {
		if x == 1 {
			return "once"
		}
		return n(x) + " times"
	}
	lastDays := func(d *int) string {
		if d == nil {
			return ""
		}
		if *d == 1 {
			return " in the last day"
		}
		return " in the last " + strconv.Itoa(*d) + " days"
	}
	if d := f.NotVisitedDays; d != nil {
		add("Has not visited" + lastDays(d))
	}
	switch lo, hi := f.VisitsMin, f.VisitsMax; {
	case lo != nil && hi != nil:
		add("Visited " + n(*lo) + " to " + times(*hi) + lastDays(f.VisitsDays))
	case lo != nil:
		add("Visited at least " + times(*lo) + lastDays(f.VisitsDays))
	case hi != nil:
		add("Visited at most " + times(*hi) + lastDays(f.VisitsDays))
	}
	cash := func(m loyalty.Money) string { return format.Money(m, b) }
	switch lo, hi := f.SpendMin, f.SpendMax; {
	case lo != nil && hi != nil:
		add("Spent " + cash(*lo) + " to " + cash(*hi) + lastDays(f.SpendDays))
	case lo != nil:
		add("Spent at least " + cash(*lo) + lastDays(f.SpendDays))
	case hi != nil:
		add("Spent at most " + cash(*hi) + lastDays(f.SpendDays))
	}
	switch lo, hi := f.PointsMin, f.PointsMax; {
	case lo != nil && hi != nil:
		add("Has " + n(*lo) + " to " + n(*hi) + " points")
	case lo != nil:
		add("Has at least " + n(*lo) + " points")
	case hi != nil:
		add("Has at most " + n(*hi) + " points")
	}
	day := func(s *string, before bool) string {
		if s == nil {
			return ""
		}
		t, err := loyalty.ParseTime(*s)
		if err != nil {
			return *s
		}
		if before {
			t = t.Add(-time.Nanosecond)
		}
		return t.In(loc).Format("Jan 2, 2006")
	}
	between := func(what string, from, before *string) {
		switch a, z := day(from, false), day(before, true); {
		case a != "" && z != "":
			add(what + " from " + a + " until " + z)
		case a != "":
			add(what + " on or after " + a)
		case z != "":
			add(what + " on or before " + z)
		}
	}
	between("Joined", f.JoinedAfter, f.JoinedBefore)
	between("Last visit", f.LastVisitAfter, f.LastVisitBefore)
	if len(f.BirthdayMonths) > 0 {
		var m []string
		for _, x := range f.BirthdayMonths {
			if x >= 1 && x <= 12 {
				m = append(m, time.Month(x).String())
			}
		}
		add("Birthday in " + or(m))
	}
	if len(f.TierLevelIDs) > 0 {
		var names []string
		for _, id := range f.TierLevelIDs {
			name := "level #" + strconv.FormatInt(id, 10)
			if c.Tier != nil {
				for _, l := range c.Tier.Levels {
					if l.ID == id {
						name = l.Name
					}
				}
			}
			names = append(names, name)
		}
		add("Tier level is " + or(names))
	}
	if len(f.LastVisitBranchIDs) > 0 {
		var names []string
		for _, id := range f.LastVisitBranchIDs {
			name := "a former branch"
			for _, br := range c.Branches {
				if br.ID == id {
					name = br.Name
				}
			}
			names = append(names, name)
		}
		add("Last visit at " + or(names))
	}
	if len(f.TagsAny) > 0 {
		add("Tagged " + or(f.TagsAny))
	}
	if len(f.TagsNone) > 0 {
		add("Not tagged " + or(f.TagsNone))
	}
	if f.Consent != nil {
		add(map[string]string{loyalty.ConsentChannelEmail: "Agreed to offers by e-mail", loyalty.ConsentChannelSMS: "Agreed to offers by text message",
			loyalty.ConsentChannelPush: "Agreed to offers in the app", loyalty.ConsentChannelAny: "Agreed to offers in some way"}[*f.Consent])
	}
	if f.HasCoupon != nil {
		s := "Holds no coupon"
		if *f.HasCoupon {
			s = "Holds a coupon"
		}
		if id := f.CouponOfferID; id != nil {
			name := "offer #" + strconv.FormatInt(*id, 10)
			for _, o := range c.Offers {
				if o.ID == *id {
					name = o.Title
				}
			}
			s += " of " + name
		}
		add(s)
	}
	if id := f.PunchCardID; id != nil {
		name := "punch card #" + strconv.FormatInt(*id, 10)
		for _, p := range c.PunchCards {
			if p.ID == *id {
				name = p.Name
			}
		}
		var parts []string
		if x := f.PunchStampsMin; x != nil {
			parts = append(parts, "at least "+n(*x)+" stamps")
		}
		if x := f.PunchCompletedMin; x != nil {
			parts = append(parts, "completed at least "+times(*x))
		}
		add(name + ": " + strings.Join(parts, ", "))
	}
	if len(out) == 0 {
		add("Every customer")
	}
	return out
}

// or joins names as a sentence does: "May", "May or June", "May, June or July".
func or(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
