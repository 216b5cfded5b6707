package loyalty_test

import (
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestOfferPeriodsByFrequency: each limited frequency has the period
// Offer.UsePeriod names, and a frequency whose uses do not count none.
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

// TestCouponStateShown: the state an offer shows for a customer's coupons
// of it: an available coupon's first (the highest issued state), else a
// claimed one's; an expired issued coupon shows nothing.
func TestCouponStateShown(t *testing.T) {
	now := utc(t, "2026-03-04T12:00:00Z")
	expired := loyalty.Coupon{CouponTypeID: loyalty.CouponRegular, ExpiresAt: utc(t, "2026-03-01T00:00:00Z")}
	regular, convertible := loyalty.Coupon{CouponTypeID: loyalty.CouponRegular}, loyalty.Coupon{CouponTypeID: loyalty.CouponConvertible}
	claimed, claimedConv := loyalty.Coupon{CouponTypeID: loyalty.CouponRegularRedeemed}, loyalty.Coupon{CouponTypeID: loyalty.CouponConvertibleRedeemed}
	for _, c := range []struct {
		name    string
		coupons []loyalty.Coupon
		want    int
	}{
		{"none", nil, 0},
		{"expired only", []loyalty.Coupon{expired}, 0},
		{"available over claimed", []loyalty.Coupon{claimed, regular}, loyalty.CouponRegular},
		{"claimed when the other expired", []loyalty.Coupon{expired, claimed}, loyalty.CouponRegularRedeemed},
		{"the higher available", []loyalty.Coupon{regular, convertible}, loyalty.CouponConvertible},
		{"the higher claimed", []loyalty.Coupon{claimedConv, claimed}, loyalty.CouponConvertibleRedeemed},
	} {
		if got := loyalty.CouponState(c.coupons, now); got != c.want {
			t.Errorf("%s: state %d, want %d", c.name, got, c.want)
		}
	}
}

// TestCustomerOffersOf: a customer sees the active offers open to them
// (targeted ones only as a target, limited ones only until used in their
// period) and any other offer they hold a coupon of that shows a state;
// never an offer they may not use and hold nothing of.
func TestCustomerOffersOf(t *testing.T) {
	now := utc(t, "2026-03-04T12:00:00Z")
	periods := loyalty.UsePeriods(now, zone(t, "UTC"))
	start := utc(t, "2026-03-01T00:00:00Z")
	offer := func(id int64, f func(*loyalty.Offer)) loyalty.Offer {
		o := loyalty.Offer{ID: id, TypeID: loyalty.OfferBasic8, Enabled: true, StartsAt: start}
		if f != nil {
			f(&o)
		}
		return o
	}
	all := []loyalty.Offer{
		offer(1, nil), // open to all
		offer(2, func(o *loyalty.Offer) { o.Enabled = false }),
		offer(3, func(o *loyalty.Offer) { o.ExpiresAt = utc(t, "2026-03-02T00:00:00Z") }),                   // ended, coupon claimed
		offer(4, func(o *loyalty.Offer) { o.StartsAt = utc(t, "2026-04-01T00:00:00Z") }),                    // not yet
		offer(5, func(o *loyalty.Offer) { o.Targeted = true }),                                              // the customer is a target
		offer(6, func(o *loyalty.Offer) { o.Targeted = true }),                                              // not a target
		offer(7, func(o *loyalty.Offer) { o.Frequency = loyalty.OfferDaily }),                               // used today
		offer(8, func(o *loyalty.Offer) { o.Frequency = loyalty.OfferWeekly }),                              // used last week
		offer(9, func(o *loyalty.Offer) { o.Enabled, o.ExpiresAt = false, utc(t, "2026-03-02T00:00:00Z") }), // expired coupon only
	}
	coupons := []loyalty.Coupon{{OfferID: 3, CouponTypeID: loyalty.CouponRegularRedeemed},
		{OfferID: 9, CouponTypeID: loyalty.CouponRegular, ExpiresAt: utc(t, "2026-03-02T00:00:00Z")}}
	facts := loyalty.OfferFacts{Targets: map[int64]bool{5: true},
		Uses: map[int64][]string{7: {periods.Day}, 8: {"w2026-02-23"}}}
	var got []int64
	states := map[int64]int{}
	for _, co := range loyalty.CustomerOffersOf(all, coupons, facts, now, periods) {
		got = append(got, co.ID)
		states[co.ID] = co.CouponTypeID
	}
	if want := []int64{1, 3, 5, 8}; !slices.Equal(got, want) {
		t.Errorf("offers seen %v, want %v", got, want)
	}
	if states[3] != loyalty.CouponRegularRedeemed || states[1] != 0 {
		t.Errorf("states %v: want 75 on the ended offer with a claimed coupon, none on the others", states)
	}
}
