package loyalty

import (
	"bytes"
	"encoding/json"
	"errors"
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
