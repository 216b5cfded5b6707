package web

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// A segment's form reads as the merchant says the conditions ("Has not
// visited in the last 60 days"), each condition's box named after the
// filter's field it sets. This file turns the posted form into the
// domain's SegmentFilter and back, and the domain's refusals into the
// form's words; what a condition selects and accepts is the domain's.

// segmentNumbers are the whole-number conditions of the form.
var segmentNumbers = []string{"not_visited_days", "visits_min", "visits_max", "visits_days", "spend_days",
	"points_min", "points_max", "punch_stamps_min", "punch_completed_min"}

// segmentDates are the form's day boxes: "from" is the filter's "after"
// (at or after the day's start), "until" its "before" (the next day's
// start), both in the business's time zone.
var segmentDates = []struct{ from, until, after, before string }{
	{"joined_from", "joined_until", "joined_after", "joined_before"},
	{"last_visit_from", "last_visit_until", "last_visit_after", "last_visit_before"},
}

// segmentLists are the conditions posted as several checkboxes.
var segmentLists = []string{"tier_level_ids", "birthday_months", "last_visit_branch_ids", "tags_any", "tags_none"}

// segmentForm is a segment's form as posted or as read from a segment:
// the name, each box's text and each list's ticked values.
type segmentForm struct {
	Name   string
	Values map[string]string
	Lists  map[string][]string
}

// Ticked reports whether the list name has value ticked.
func (f segmentForm) Ticked(name, value string) bool { return slices.Contains(f.Lists[name], value) }

// postedSegment reads a segment's form from a post.
func postedSegment(v url.Values) segmentForm {
	f := segmentForm{Name: strings.TrimSpace(v.Get("name")), Values: map[string]string{}, Lists: map[string][]string{}}
	for _, n := range append(append([]string{"spend_min", "spend_max", "consent", "has_coupon", "coupon_offer_id", "punch_card_id"},
		segmentNumbers...), "joined_from", "joined_until", "last_visit_from", "last_visit_until") {
		f.Values[n] = strings.TrimSpace(v.Get(n))
	}
	for _, n := range segmentLists {
		f.Lists[n] = v[n]
	}
	return f
}

// filter is the form's filter, or the boxes it cannot read with what is
// wrong with each.
func (f segmentForm) filter(loc *time.Location) (loyalty.SegmentFilter, map[string][]string) {
	var out loyalty.SegmentFilter
	bad := map[string][]string{}
	whole := func(name string) *int64 {
		s := f.Values[name]
		if s == "" {
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			bad[name] = append(bad[name], "Enter a whole number, such as 30.")
			return nil
		}
		return &n
	}
	days := func(name string) *int {
		n := whole(name)
		if n == nil {
			return nil
		}
		if *n < -1<<30 || *n > 1<<30 {
			bad[name] = append(bad[name], "Enter a number of days, such as 30.")
			return nil
		}
		d := int(*n)
		return &d
	}
	money := func(name string) *loyalty.Money {
		s := f.Values[name]
		if s == "" {
			return nil
		}
		m, err := loyalty.ParseMoney(s)
		if err != nil {
			bad[name] = append(bad[name], "Enter an amount, such as 20.00.")
			return nil
		}
		return &m
	}
	id := func(name string) *int64 {
		s := f.Values[name]
		if s == "" {
			return nil
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			bad[name] = append(bad[name], "Choose from the list.")
			return nil
		}
		return &n
	}
	out.NotVisitedDays = days("not_visited_days")
	out.VisitsMin, out.VisitsMax, out.VisitsDays = whole("visits_min"), whole("visits_max"), days("visits_days")
	out.SpendMin, out.SpendMax, out.SpendDays = money("spend_min"), money("spend_max"), days("spend_days")
	out.PointsMin, out.PointsMax = whole("points_min"), whole("points_max")
	out.PunchCardID = id("punch_card_id")
	out.PunchStampsMin, out.PunchCompletedMin = whole("punch_stamps_min"), whole("punch_completed_min")
	out.CouponOfferID = id("coupon_offer_id")
	switch f.Values["has_coupon"] {
	case "yes", "no":
		has := f.Values["has_coupon"] == "yes"
		out.HasCoupon = &has
	}
	if c := f.Values["consent"]; c != "" {
		out.Consent = &c
	}
	for _, d := range segmentDates {
		for _, end := range []struct {
			box  string
			to   **string
			next bool
		}{{d.from, fieldOf(&out, d.after), false}, {d.until, fieldOf(&out, d.before), true}} {
			s := f.Values[end.box]
			if s == "" {
				continue
			}
			t, err := time.ParseInLocation(time.DateOnly, s, loc)
			if err != nil {
				bad[end.box] = append(bad[end.box], "Enter a date.")
				continue
			}
			if end.next {
				t = t.AddDate(0, 0, 1)
			}
			at := t.Format(time.RFC3339)
			*end.to = &at
		}
	}
	var ids = func(name string) []int64 {
		var out []int64
		for _, s := range f.Lists[name] {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				bad[name] = []string{"Choose from the list."}
				return nil
			}
			out = append(out, n)
		}
		return out
	}
	out.TierLevelIDs = ids("tier_level_ids")
	for _, n := range ids("birthday_months") {
		out.BirthdayMonths = append(out.BirthdayMonths, int(n))
	}
	out.LastVisitBranchIDs = f.Lists["last_visit_branch_ids"]
	out.TagsAny, out.TagsNone = f.Lists["tags_any"], f.Lists["tags_none"]
	return out, bad
}

// fieldOf is the filter's date bound named by its field's JSON name.
func fieldOf(f *loyalty.SegmentFilter, name string) **string {
	switch name {
	case "joined_after":
		return &f.JoinedAfter
	case "joined_before":
		return &f.JoinedBefore
	case "last_visit_after":
		return &f.LastVisitAfter
	}
	return &f.LastVisitBefore
}

// segmentFormOf is a saved segment's form, its dates shown as days in
// the business's time zone.
func segmentFormOf(seg loyalty.Segment, loc *time.Location) segmentForm {
	f := segmentForm{Name: seg.Name, Values: map[string]string{}, Lists: map[string][]string{}}
	x := seg.Filter
	num := func(name string, n *int64) {
		if n != nil {
			f.Values[name] = strconv.FormatInt(*n, 10)
		}
	}
	day := func(name string, d *int) {
		if d != nil {
			f.Values[name] = strconv.Itoa(*d)
		}
	}
	cash := func(name string, m *loyalty.Money) {
		if m != nil {
			f.Values[name] = m.String()
		}
	}
	day("not_visited_days", x.NotVisitedDays)
	num("visits_min", x.VisitsMin)
	num("visits_max", x.VisitsMax)
	day("visits_days", x.VisitsDays)
	cash("spend_min", x.SpendMin)
	cash("spend_max", x.SpendMax)
	day("spend_days", x.SpendDays)
	num("points_min", x.PointsMin)
	num("points_max", x.PointsMax)
	num("punch_card_id", x.PunchCardID)
	num("punch_stamps_min", x.PunchStampsMin)
	num("punch_completed_min", x.PunchCompletedMin)
	num("coupon_offer_id", x.CouponOfferID)
	if x.HasCoupon != nil {
		f.Values["has_coupon"] = map[bool]string{true: "yes", false: "no"}[*x.HasCoupon]
	}
	if x.Consent != nil {
		f.Values["consent"] = *x.Consent
	}
	for _, d := range segmentDates {
		if s := *fieldOf(&x, d.after); s != nil {
			if t, err := loyalty.ParseTime(*s); err == nil {
				f.Values[d.from] = t.In(loc).Format(time.DateOnly)
			}
		}
		if s := *fieldOf(&x, d.before); s != nil {
			if t, err := loyalty.ParseTime(*s); err == nil {
				// Before the next day's start: until the day before.
				f.Values[d.until] = t.In(loc).Add(-time.Nanosecond).Format(time.DateOnly)
			}
		}
	}
	for _, id := range x.TierLevelIDs {
		f.Lists["tier_level_ids"] = append(f.Lists["tier_level_ids"], strconv.FormatInt(id, 10))
	}
	for _, m := range x.BirthdayMonths {
		f.Lists["birthday_months"] = append(f.Lists["birthday_months"], strconv.Itoa(m))
	}
	f.Lists["last_visit_branch_ids"] = x.LastVisitBranchIDs
	f.Lists["tags_any"], f.Lists["tags_none"] = x.TagsAny, x.TagsNone
	return f
}

// More reports whether a condition folded under "More conditions" is
// set, so that the fold opens on it.
func (f segmentForm) More() bool {
	for _, n := range []string{"points_min", "points_max", "joined_from", "joined_until", "last_visit_from", "last_visit_until",
		"punch_card_id", "punch_stamps_min", "punch_completed_min"} {
		if f.Values[n] != "" {
			return true
		}
	}
	return len(f.Lists["last_visit_branch_ids"]) > 0 || len(f.Lists["tags_none"]) > 0
}

// segmentFieldWords name the filter's fields as the form does, for the
// domain's messages: "The not_visited_days must be between 1 and 3660."
// reads "The number of days without a visit must be between 1 and 3660."
var segmentFieldWords = map[string]string{
	"not_visited_days": "number of days without a visit",
	"visits_min":       "fewest visits", "visits_max": "most visits", "visits_days": "number of days the visits are counted over",
	"spend_min": "least spent", "spend_max": "most spent", "spend_days": "number of days the spend is counted over",
	"points_min": "lowest balance", "points_max": "highest balance",
	"punch_card_id": "punch card", "punch_stamps_min": "fewest stamps", "punch_completed_min": "fewest completed cards",
	"has_coupon": "choice of holding a coupon", "coupon_offer_id": "coupon's offer",
	"tier_level_ids": "tier levels", "birthday_months": "birthday months", "last_visit_branch_ids": "branches",
	"tags_any": "tags", "tags_none": "tags to leave out", "consent": "consent",
	"joined_after": "first joining day", "joined_before": "last joining day",
	"last_visit_after": "first day of the last visit", "last_visit_before": "last day of the last visit",
}

// segmentBoxWords name the form's boxes in the count's reasons for not
// counting ("Visits at most: The most visits must be ...").
var segmentBoxWords = map[string]string{
	"not_visited_days": "Days without a visit", "visits_min": "Visits at least", "visits_max": "Visits at most",
	"visits_days": "Visits in the last", "spend_min": "Spent at least", "spend_max": "Spent at most", "spend_days": "Spent in the last",
	"points_min": "Points at least", "points_max": "Points at most", "punch_card_id": "Punch card",
	"punch_stamps_min": "Stamps", "punch_completed_min": "Completed", "has_coupon": "Coupon", "coupon_offer_id": "Offer",
	"tier_level_ids": "Tier level", "birthday_months": "Birthday", "last_visit_branch_ids": "Last visit at",
	"tags_any": "Tagged", "tags_none": "Not tagged", "consent": "Agreed to offers",
	"joined_from": "Joined from", "joined_until": "Joined until", "last_visit_from": "Last visit from", "last_visit_until": "Last visit until",
}

// segmentFieldWord matches a field's name in a domain message.
var segmentFieldWord = regexp.MustCompile(`\b(The )?([a-z]+(?:_[a-z]+)+)\b`)

// segmentRefusal puts the domain's refusal of a filter on the form's
// boxes, in the form's words.
func segmentRefusal(fields map[string][]string) map[string][]string {
	box := map[string]string{}
	for _, d := range segmentDates {
		box[d.after], box[d.before] = d.from, d.until
	}
	out := map[string][]string{}
	for name, msgs := range fields {
		to := strings.TrimPrefix(name, "filters.")
		if b, ok := box[to]; ok {
			to = b
		}
		for _, m := range msgs {
			out[to] = append(out[to], segmentFieldWord.ReplaceAllStringFunc(m, func(s string) string {
				sub := segmentFieldWord.FindStringSubmatch(s)
				w, ok := segmentFieldWords[sub[2]]
				switch {
				case !ok:
					return s
				case sub[1] != "":
					return "The " + w
				}
				return "the " + w
			}))
		}
	}
	return out
}

// segmentChoices are the choices of the form's pickers.
type segmentChoices struct {
	Levels   []option
	Branches []option // only with two branches or more: one says nothing
	Offers   []option
	Cards    []option
	Tags     []string
	Months   []option
	Consents []option
	Coupons  []option
}

// months are the birthday months' boxes.
var months = func() []option {
	out := make([]option, 12)
	for i := range out {
		out[i] = option{strconv.Itoa(i + 1), time.Month(i + 1).String()[:3]}
	}
	return out
}()

// segmentChoicesOf lays out what the form picks from; tags the form ticks
// that no customer carries any more stay on offer, to be unticked.
func segmentChoicesOf(c console.SegmentChoices, f segmentForm) segmentChoices {
	out := segmentChoices{Months: months, Tags: c.Tags,
		Consents: []option{{"", "No condition"}, {loyalty.ConsentChannelEmail, "E-mail"}, {loyalty.ConsentChannelSMS, "Text message"},
			{loyalty.ConsentChannelPush, "App"}, {loyalty.ConsentChannelAny, "Any of them"}},
		Coupons: []option{{"", "No condition"}, {"yes", "Holds one"}, {"no", "Holds none"}}}
	if c.Tier != nil {
		for _, l := range c.Tier.Levels {
			out.Levels = append(out.Levels, option{strconv.FormatInt(l.ID, 10), l.Name})
		}
	}
	if len(c.Branches) > 1 {
		for _, b := range c.Branches {
			out.Branches = append(out.Branches, option{b.ID, b.Name})
		}
	}
	for _, o := range c.Offers {
		out.Offers = append(out.Offers, option{strconv.FormatInt(o.ID, 10), o.Title})
	}
	for _, p := range c.PunchCards {
		out.Cards = append(out.Cards, option{strconv.FormatInt(p.ID, 10), p.Name})
	}
	for _, t := range append(slices.Clone(f.Lists["tags_any"]), f.Lists["tags_none"]...) {
		if !slices.Contains(out.Tags, t) {
			out.Tags = append(out.Tags, t)
		}
	}
	slices.Sort(out.Tags)
	return out
}
