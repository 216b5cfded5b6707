package web

import (
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestSegmentFormRoundTrip: a posted segment form reads into the filter
// (days from and until in the business's time zone, "until" inclusive)
// and a saved filter reads back into the same boxes; boxes it cannot
// read are named with what is wrong.
func TestSegmentFormRoundTrip(t *testing.T) {
	loc, err := time.LoadLocation("America/Toronto")
	if err != nil {
		t.Skip("no time zone data")
	}
	posted := url.Values{"name": {" Lapsed "}, "not_visited_days": {"60"}, "spend_min": {"20.5"}, "spend_days": {"30"},
		"joined_from": {"2026-10-01"}, "joined_until": {"2026-10-31"}, "birthday_months": {"5", "6"}, "tags_any": {"vip"},
		"consent": {"email"}, "has_coupon": {"yes"}, "coupon_offer_id": {"7"}, "punch_card_id": {""}}
	form := postedSegment(posted)
	f, bad := form.filter(loc)
	if len(bad) > 0 {
		t.Fatalf("refused: %v", bad)
	}
	if *f.NotVisitedDays != 60 || *f.SpendMin != 2050 || *f.SpendDays != 30 || f.PunchCardID != nil ||
		*f.JoinedAfter != "2026-10-01T00:00:00-04:00" || *f.JoinedBefore != "2026-11-01T00:00:00-04:00" ||
		!slices.Equal(f.BirthdayMonths, []int{5, 6}) || *f.Consent != "email" || !*f.HasCoupon || *f.CouponOfferID != 7 {
		t.Errorf("filter %+v", f)
	}
	back := segmentFormOf(loyalty.Segment{Name: "Lapsed", Filter: f}, loc)
	for k, v := range map[string]string{"not_visited_days": "60", "spend_min": "20.50", "joined_from": "2026-10-01", "joined_until": "2026-10-31",
		"has_coupon": "yes", "coupon_offer_id": "7", "consent": "email"} {
		if back.Values[k] != v {
			t.Errorf("%s reads back %q, want %q", k, back.Values[k], v)
		}
	}
	if !back.Ticked("birthday_months", "6") || !back.Ticked("tags_any", "vip") || back.More() == false {
		t.Errorf("read back %+v", back)
	}

	_, bad = postedSegment(url.Values{"visits_min": {"five"}, "spend_max": {"12.345"}, "last_visit_until": {"31/10/2026"},
		"tier_level_ids": {"gold"}}).filter(loc)
	for _, box := range []string{"visits_min", "spend_max", "last_visit_until", "tier_level_ids"} {
		if len(bad[box]) == 0 {
			t.Errorf("%s not refused: %v", box, bad)
		}
	}
}

// TestSegmentRefusal: the domain's refusals land on the form's boxes, in
// the form's words.
func TestSegmentRefusal(t *testing.T) {
	got := segmentRefusal(map[string][]string{
		"filters.visits_max":       {"The visits_max must be at least visits_min."},
		"filters.not_visited_days": {"The not_visited_days must be between 1 and 3660."},
		"filters.joined_before":    {"The joined_before must be a date (YYYY-MM-DD) or an RFC 3339 time."},
		"name":                     {"The name field is required."},
	})
	want := map[string]string{
		"visits_max":       "The most visits must be at least the fewest visits.",
		"not_visited_days": "The number of days without a visit must be between 1 and 3660.",
		"joined_until":     "The last joining day must be a date (YYYY-MM-DD) or an RFC 3339 time.",
		"name":             "The name field is required.",
	}
	for box, msg := range want {
		if len(got[box]) != 1 || got[box][0] != msg {
			t.Errorf("%s: %q, want %q", box, got[box], msg)
		}
	}
}
