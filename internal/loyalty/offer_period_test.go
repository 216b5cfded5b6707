package loyalty_test

import (
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestOfferPeriodsByFrequency: the table a store looks an offer's use
// period up in gives each limited frequency the period Offer.UsePeriod
// names, and no row to a frequency whose uses do not count.
func TestOfferPeriodsByFrequency(t *testing.T) {
	p := loyalty.OfferPeriods{Day: "d2026-03-04", Week: "w2026-03-02"}
	want := []loyalty.FrequencyPeriod{
		{Frequency: loyalty.OfferOnce, Period: ""},
		{Frequency: loyalty.OfferDaily, Period: "d2026-03-04"},
		{Frequency: loyalty.OfferWeekly, Period: "w2026-03-02"},
	}
	if got := p.ByFrequency(); !slices.Equal(got, want) {
		t.Errorf("ByFrequency = %+v, want %+v", got, want)
	}
	at := utc(t, "2026-03-04T12:00:00Z")
	listed := map[int]string{}
	for _, fp := range loyalty.UsePeriods(at, zone(t, "UTC")).ByFrequency() {
		listed[fp.Frequency] = fp.Period
	}
	for _, f := range []int{0, loyalty.OfferOnce, loyalty.OfferDaily, loyalty.OfferWeekly, loyalty.OfferDayTime} {
		o := loyalty.Offer{Frequency: f}
		period, ok := listed[f]
		switch {
		case ok != o.Limited():
			t.Errorf("frequency %d: listed %v, limited %v", f, ok, o.Limited())
		case ok && period != o.UsePeriod(at, zone(t, "UTC")):
			t.Errorf("frequency %d: period %q, UsePeriod %q", f, period, o.UsePeriod(at, zone(t, "UTC")))
		}
	}
}

// TestCouponStates: a coupon in an issued state is available until it
// expires and not claimed; one in a claimed state is claimed and never
// available.
func TestCouponStates(t *testing.T) {
	now := utc(t, "2026-03-04T12:00:00Z")
	for _, c := range []struct {
		state              int
		expires            string
		available, claimed bool
	}{
		{loyalty.CouponRegular, "", true, false},
		{loyalty.CouponConvertible, "", true, false},
		{loyalty.CouponRegular, "2026-03-04T12:00:01Z", true, false},
		{loyalty.CouponConvertible, "2026-03-04T12:00:00Z", false, false},
		{loyalty.CouponRegularRedeemed, "", false, true},
		{loyalty.CouponConvertibleRedeemed, "", false, true},
	} {
		cp := loyalty.Coupon{CouponTypeID: c.state}
		if c.expires != "" {
			cp.ExpiresAt = utc(t, c.expires)
		}
		if cp.Available(now) != c.available || cp.Claimed() != c.claimed {
			t.Errorf("state %d expiring %q: available %v, claimed %v; want %v, %v", c.state, c.expires,
				cp.Available(now), cp.Claimed(), c.available, c.claimed)
		}
	}
}
