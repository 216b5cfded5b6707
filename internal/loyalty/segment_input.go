package loyalty

import (
	"slices"
	"strconv"
	"strings"
)

// SegmentInput is the body of a segment create or update.
type SegmentInput struct {
	Name    Opt[string]        `json:"name"`
	Filters Opt[SegmentFilter] `json:"filters"`
}

// segmentFacts are what checking a filter needs from the store: the
// business's tier programs, branches, punch cards and offers.
type segmentFacts struct {
	tier     *Tier
	branches map[string]bool // the business's, true for the main one
	main     string
	cards    map[int64]bool
	offers   map[int64]bool
}

// check validates f against the business's facts, naming each bad field
// under prefix ("filters.").
func (f SegmentFilter) check(v Validation, facts segmentFacts) {
	const p = "filters."
	nonNeg := func(name string, x *int64) {
		if x != nil && *x < 0 {
			v.Add(p+name, "The "+name+" must be 0 or more.")
		}
	}
	ordered := func(lo, hi string, a, b *int64) {
		if a != nil && b != nil && *a > *b {
			v.Add(p+hi, "The "+hi+" must be at least "+lo+".")
		}
	}
	days := func(name string, d *int) {
		if d != nil && (*d < 1 || *d > maxSegmentDays) {
			v.Add(p+name, "The "+name+" must be between 1 and "+strconv.Itoa(maxSegmentDays)+".")
		}
	}
	when := func(name string, s *string) {
		if s == nil {
			return
		}
		if _, err := ParseTime(*s); err != nil {
			v.Add(p+name, "The "+name+" must be a date (YYYY-MM-DD) or an RFC 3339 time.")
		}
	}
	list := func(name string, n int) bool {
		if n > maxSegmentList {
			v.Add(p+name, "The "+name+" may list at most "+strconv.Itoa(maxSegmentList)+" values.")
			return false
		}
		return true
	}

	if len(f.TierLevelIDs) > 0 && list("tier_level_ids", len(f.TierLevelIDs)) {
		if facts.tier == nil {
			v.Add(p+"tier_level_ids", "The business has no enabled tier program.")
		} else {
			for _, id := range f.TierLevelIDs {
				if facts.tier.levelIndex(id) < 0 {
					v.Add(p+"tier_level_ids", "The tier level "+strconv.FormatInt(id, 10)+" is not a level of the business's tier program.")
					break
				}
			}
		}
	}
	nonNeg("points_min", f.PointsMin)
	nonNeg("points_max", f.PointsMax)
	ordered("points_min", "points_max", f.PointsMin, f.PointsMax)
	when("joined_after", f.JoinedAfter)
	when("joined_before", f.JoinedBefore)
	when("last_visit_after", f.LastVisitAfter)
	when("last_visit_before", f.LastVisitBefore)
	days("not_visited_days", f.NotVisitedDays)
	nonNeg("visits_min", f.VisitsMin)
	nonNeg("visits_max", f.VisitsMax)
	ordered("visits_min", "visits_max", f.VisitsMin, f.VisitsMax)
	days("visits_days", f.VisitsDays)
	if f.VisitsDays != nil && f.VisitsMin == nil && f.VisitsMax == nil {
		v.Add(p+"visits_days", "The visits_days needs visits_min or visits_max.")
	}
	money := func(name string, m *Money) *int64 {
		if m == nil {
			return nil
		}
		if *m < 0 || *m > MaxMoney {
			v.Add(p+name, "The "+name+" must be between 0 and "+MaxMoney.String()+".")
		}
		x := int64(*m)
		return &x
	}
	ordered("spend_min", "spend_max", money("spend_min", f.SpendMin), money("spend_max", f.SpendMax))
	days("spend_days", f.SpendDays)
	if f.SpendDays != nil && f.SpendMin == nil && f.SpendMax == nil {
		v.Add(p+"spend_days", "The spend_days needs spend_min or spend_max.")
	}
	if list("birthday_months", len(f.BirthdayMonths)) {
		for _, m := range f.BirthdayMonths {
			if m < 1 || m > 12 {
				v.Add(p+"birthday_months", "Each of birthday_months must be a month from 1 to 12.")
				break
			}
		}
	}
	if list("last_visit_branch_ids", len(f.LastVisitBranchIDs)) {
		for _, id := range f.LastVisitBranchIDs {
			if !facts.branches[id] {
				v.Add(p+"last_visit_branch_ids", "The branch "+id+" is not one of the business's branches.")
				break
			}
		}
	}
	for _, t := range []struct {
		name string
		tags []string
	}{{"tags_any", f.TagsAny}, {"tags_none", f.TagsNone}} {
		if list(t.name, len(t.tags)) {
			for _, tag := range t.tags {
				if _, ok := normalTag(tag); !ok {
					v.Add(p+t.name, "Each tag must be 1 to "+strconv.Itoa(maxSegmentTagLen)+" characters.")
					break
				}
			}
		}
	}
	if f.Consent != nil {
		switch *f.Consent {
		case ConsentChannelEmail, ConsentChannelSMS, ConsentChannelPush, ConsentChannelAny:
		default:
			v.Add(p+"consent", "The consent must be email, sms, push or any.")
		}
	}
	nonNeg("punch_stamps_min", f.PunchStampsMin)
	nonNeg("punch_completed_min", f.PunchCompletedMin)
	switch {
	case f.PunchCardID == nil && (f.PunchStampsMin != nil || f.PunchCompletedMin != nil):
		v.Add(p+"punch_card_id", "The punch_card_id is required with punch_stamps_min or punch_completed_min.")
	case f.PunchCardID != nil && !facts.cards[*f.PunchCardID]:
		v.Add(p+"punch_card_id", "The punch card is not one of the business's.")
	case f.PunchCardID != nil && f.PunchStampsMin == nil && f.PunchCompletedMin == nil:
		v.Add(p+"punch_stamps_min", "Give punch_stamps_min or punch_completed_min with punch_card_id.")
	}
	switch {
	case f.CouponOfferID != nil && f.HasCoupon == nil:
		v.Add(p+"has_coupon", "The has_coupon is required with coupon_offer_id.")
	case f.CouponOfferID != nil && !facts.offers[*f.CouponOfferID]:
		v.Add(p+"coupon_offer_id", "The offer is not one of the business's.")
	}
}

// normalTag is a tag as stored: trimmed and lower-cased; ok false when
// it is empty or too long.
func normalTag(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	n := len([]rune(s))
	return s, n >= 1 && n <= maxSegmentTagLen
}

// normalTags are tags as stored, each once, sorted.
func normalTags(in []string) []string {
	out := make([]string, 0, len(in))
	for _, t := range in {
		if t, ok := normalTag(t); ok {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
