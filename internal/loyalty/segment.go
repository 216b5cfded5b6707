package loyalty

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A segment is a named filter over a business's customers ("members who
// have not visited for 60 days", "Gold members with a birthday in May").
// Its filter is kept as the business wrote it: what it selects is
// resolved against the clock each time it is read (SegmentFilter.criteria),
// so "not in 60 days" means the 60 days before the count, every day.

// Segment is one of a business's saved filters.
type Segment struct {
	ID         int64
	BusinessID string
	Name       string
	Filter     SegmentFilter
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// SegmentFilter is what a segment selects: every condition set must hold;
// an empty filter selects every active customer. It is the body's
// "filters" object, and is stored as it is.
type SegmentFilter struct {
	// TierLevelIDs: the customer's level in the business's enabled tier
	// program is one of these.
	TierLevelIDs []int64 `json:"tier_level_ids,omitempty"`
	// PointsMin and PointsMax bound the active points balance (inclusive).
	PointsMin *int64 `json:"points_min,omitempty"`
	PointsMax *int64 `json:"points_max,omitempty"`
	// JoinedAfter and JoinedBefore bound when the customer joined
	// (at or after, before).
	JoinedAfter  *string `json:"joined_after,omitempty"`
	JoinedBefore *string `json:"joined_before,omitempty"`
	// LastVisitAfter and LastVisitBefore bound the last visit; a customer
	// who never visited has none and matches neither.
	LastVisitAfter  *string `json:"last_visit_after,omitempty"`
	LastVisitBefore *string `json:"last_visit_before,omitempty"`
	// NotVisitedDays: no visit in the last N days, never visited included.
	NotVisitedDays *int `json:"not_visited_days,omitempty"`
	// VisitsMin and VisitsMax bound the visits counted in the last
	// VisitsDays days (all time without it); a customer without any
	// counts 0.
	VisitsMin  *int64 `json:"visits_min,omitempty"`
	VisitsMax  *int64 `json:"visits_max,omitempty"`
	VisitsDays *int   `json:"visits_days,omitempty"`
	// SpendMin and SpendMax bound the spend in the last SpendDays days
	// (all time without it): purchases less what was returned or
	// cancelled, as tiers count it.
	SpendMin  *Money `json:"spend_min,omitempty"`
	SpendMax  *Money `json:"spend_max,omitempty"`
	SpendDays *int   `json:"spend_days,omitempty"`
	// BirthdayMonths: the birth date's month is one of these (1-12).
	BirthdayMonths []int `json:"birthday_months,omitempty"`
	// LastVisitBranchIDs: the last visit was at one of these branches.
	LastVisitBranchIDs []string `json:"last_visit_branch_ids,omitempty"`
	// TagsAny: the customer has at least one of these tags; TagsNone:
	// none of these.
	TagsAny  []string `json:"tags_any,omitempty"`
	TagsNone []string `json:"tags_none,omitempty"`
	// Consent: the customer's marketing consent allows this channel
	// ("email", "sms", "push") or, with "any", at least one of them.
	Consent *string `json:"consent,omitempty"`
	// PunchCardID with PunchStampsMin and/or PunchCompletedMin: the
	// customer's stamps on the card, and the times they completed it.
	PunchCardID       *int64 `json:"punch_card_id,omitempty"`
	PunchStampsMin    *int64 `json:"punch_stamps_min,omitempty"`
	PunchCompletedMin *int64 `json:"punch_completed_min,omitempty"`
	// HasCoupon: the customer holds (true) or does not hold (false) a
	// coupon still to be used, of CouponOfferID's offer when set.
	HasCoupon     *bool  `json:"has_coupon,omitempty"`
	CouponOfferID *int64 `json:"coupon_offer_id,omitempty"`
}

// Consent channels a segment may require.
const (
	ConsentChannelEmail = "email"
	ConsentChannelSMS   = "sms"
	ConsentChannelPush  = "push"
	ConsentChannelAny   = "any"
)

// Bounds of a segment.
const (
	maxSegmentName   = 120
	maxSegmentList   = 100  // ids, tags, branches, months in one condition
	maxSegmentDays   = 3660 // ten years
	maxSegmentTagLen = 40
)

// CustomerCriteria is a segment's filter resolved at an instant, as the
// store runs it over the customers' rows: every set condition must hold.
// Times are absolute; ranges are inclusive unless said.
type CustomerCriteria struct {
	// Tier selects by the level the business's enabled tier program last
	// announced for the customer (customer_tiers); nil for any.
	Tier *TierCriterion
	// Points bounds the active balance.
	PointsMin, PointsMax *int64
	// JoinedFrom (at or after) and JoinedBefore (before); zero for none.
	JoinedFrom, JoinedBefore time.Time
	// LastVisitFrom (at or after) and LastVisitBefore (before) bound the
	// last visit; a customer without one fails either. NoVisitSince: no
	// visit at or after it (never visited included).
	LastVisitFrom, LastVisitBefore, NoVisitSince time.Time
	// Visits and Spend bound sums of the ledger's visits and tier spend.
	Visits, Spend *LedgerSum
	// BirthMonths are "01".."12" (a birth date is stored YYYY-MM-DD);
	// BirthDays "MM-DD".
	BirthMonths []string
	BirthDays   []string
	// LastVisitBranches: the last visit's branch is one of these;
	// LastVisitMain: or the visit named no branch (the main one's).
	LastVisitBranches []string
	LastVisitMain     bool
	// TagsAny and TagsNone as in SegmentFilter.
	TagsAny, TagsNone []string
	// Consent: the channels of the current marketing consent, at least
	// one of which must be allowed; nil for any.
	Consent *ContactChannels
	// Punch bounds a customer's progress on a punch card; nil for any.
	Punch *PunchCriterion
	// Coupon: holds (or not) a coupon still to be used; nil for any.
	Coupon *CouponCriterion
	// Expiring: holds points of a lot in one of States that expire in
	// [From, To); the candidates then carry the first such expiry
	// (Candidate.NextExpiry). Nil for any.
	Expiring *ExpiringCriterion
	// And are more criteria that must hold too (an automation's trigger
	// within its segment).
	And *CustomerCriteria
}

// TierCriterion selects customers by announced level.
type TierCriterion struct {
	TierID   int64
	LevelIDs []int64
	// Unannounced: customers the keeper holds no row for match too, as
	// they hold the level a new customer holds, which is one of LevelIDs.
	Unannounced bool
}

// LedgerSum bounds the sum of an entry column of a customer's entries
// created at or after From (all of them when zero); a customer without
// entries sums 0.
type LedgerSum struct {
	From     time.Time
	Min, Max *int64
}

// PunchCriterion bounds a customer's stamps and completions on a card; a
// customer who never got a stamp has 0 of each.
//
// ChangedFrom: stamped at or after it (zero for any time); the
// candidates then carry the completions (Candidate.Completed).
type PunchCriterion struct {
	ChangedFrom             time.Time
	CardID                  int64
	StampsMin, CompletedMin int64
}

// ExpiringCriterion selects customers with points expiring in a window.
type ExpiringCriterion struct {
	From, To time.Time
	States   []string
}

// CouponCriterion selects by holding a coupon still to be used at At
// (Coupon.Available): in one of States, not expired, not taken back.
type CouponCriterion struct {
	Has     bool
	OfferID int64 // 0 for any offer
	States  []int
	At      time.Time
}

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

// criteria resolves a checked filter at now: relative days become times,
// the tier condition names the program and whether a customer the keeper
// has not announced holds one of the levels.
func (f SegmentFilter) criteria(now time.Time, facts segmentFacts) CustomerCriteria {
	at := func(s *string) time.Time {
		if s == nil {
			return time.Time{}
		}
		t, _ := ParseTime(*s) // checked
		return t
	}
	ago := func(d *int) time.Time {
		if d == nil {
			return time.Time{}
		}
		return now.Add(-time.Duration(*d) * 24 * time.Hour)
	}
	c := CustomerCriteria{
		PointsMin: f.PointsMin, PointsMax: f.PointsMax,
		JoinedFrom: at(f.JoinedAfter), JoinedBefore: at(f.JoinedBefore),
		LastVisitFrom: at(f.LastVisitAfter), LastVisitBefore: at(f.LastVisitBefore),
		NoVisitSince:      ago(f.NotVisitedDays),
		LastVisitBranches: f.LastVisitBranchIDs,
		TagsAny:           normalTags(f.TagsAny), TagsNone: normalTags(f.TagsNone),
	}
	if tier := facts.tier; len(f.TierLevelIDs) > 0 {
		// Without a program (it was disabled since) nobody holds a level.
		c.Tier = &TierCriterion{}
		if tier != nil {
			c.Tier = &TierCriterion{TierID: tier.ID, LevelIDs: f.TierLevelIDs,
				Unannounced: slices.Contains(f.TierLevelIDs, tier.levelID(tier.base()))}
		}
	}
	c.LastVisitMain = facts.main != "" && slices.Contains(f.LastVisitBranchIDs, facts.main)
	if f.VisitsMin != nil || f.VisitsMax != nil {
		c.Visits = &LedgerSum{From: ago(f.VisitsDays), Min: f.VisitsMin, Max: f.VisitsMax}
	}
	if f.SpendMin != nil || f.SpendMax != nil {
		s := &LedgerSum{From: ago(f.SpendDays)}
		if f.SpendMin != nil {
			x := int64(*f.SpendMin)
			s.Min = &x
		}
		if f.SpendMax != nil {
			x := int64(*f.SpendMax)
			s.Max = &x
		}
		c.Spend = s
	}
	for _, m := range f.BirthdayMonths {
		c.BirthMonths = append(c.BirthMonths, twoDigits(int64(m)))
	}
	if f.Consent != nil {
		switch *f.Consent {
		case ConsentChannelEmail:
			c.Consent = &ContactChannels{Email: true}
		case ConsentChannelSMS:
			c.Consent = &ContactChannels{SMS: true}
		case ConsentChannelPush:
			c.Consent = &ContactChannels{Push: true}
		default:
			c.Consent = &ContactChannels{Email: true, SMS: true, Push: true}
		}
	}
	if f.PunchCardID != nil {
		p := &PunchCriterion{CardID: *f.PunchCardID}
		if f.PunchStampsMin != nil {
			p.StampsMin = *f.PunchStampsMin
		}
		if f.PunchCompletedMin != nil {
			p.CompletedMin = *f.PunchCompletedMin
		}
		c.Punch = p
	}
	if f.HasCoupon != nil {
		c.Coupon = &CouponCriterion{Has: *f.HasCoupon, States: CouponIssued(), At: now}
		if f.CouponOfferID != nil {
			c.Coupon.OfferID = *f.CouponOfferID
		}
	}
	return c
}

// UnmarshalJSON decodes a filter strictly: a condition it does not know
// is refused naming it (a misspelt condition would otherwise select
// everyone), as is a value of the wrong type.
func (f *SegmentFilter) UnmarshalJSON(b []byte) error {
	type plain SegmentFilter
	var out plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&out)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		*f = SegmentFilter(out)
		return nil
	case errors.As(err, &te) && te.Field != "":
		return Invalid("filters."+te.Field, "The "+te.Field+" condition has a value of the wrong type.")
	case errors.As(err, &te):
		return Invalid("filters", "The filters must be an object.")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return Invalid("filters."+name, "A segment has no condition "+name+".")
	}
	return Invalid("filters", "The filters could not be read.")
}
