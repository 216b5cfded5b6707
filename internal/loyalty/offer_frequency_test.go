package loyalty_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// zone loads a time zone or stops the test.
func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// utc parses an RFC 3339 time in UTC.
func utc(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestOfferUsePeriods checks that a daily offer's day starts at the
// business's local midnight and a weekly offer's week at its local Monday
// midnight, across the changes of daylight saving time.
func TestOfferUsePeriods(t *testing.T) {
	ny, paris := zone(t, "America/New_York"), zone(t, "Europe/Paris")
	daily := loyalty.Offer{Frequency: loyalty.OfferDaily}
	weekly := loyalty.Offer{Frequency: loyalty.OfferWeekly}
	once := loyalty.Offer{Frequency: loyalty.OfferOnce}
	for _, c := range []struct {
		name  string
		offer loyalty.Offer
		loc   *time.Location
		at    string
		want  string
	}{
		// New York springs forward on Sunday 2026-03-08: the day before ends
		// at 05:00 UTC (midnight EST), that day at 04:00 UTC (midnight EDT).
		{"NY Saturday 23:59 EST", daily, ny, "2026-03-08T04:59:00Z", "d2026-03-07"},
		{"NY Sunday 00:00 EST", daily, ny, "2026-03-08T05:00:00Z", "d2026-03-08"},
		{"NY UTC midnight is Sunday 20:00 EDT", daily, ny, "2026-03-09T00:00:00Z", "d2026-03-08"},
		{"NY Sunday 23:59 EDT", daily, ny, "2026-03-09T03:59:00Z", "d2026-03-08"},
		{"NY Monday 00:00 EDT", daily, ny, "2026-03-09T04:00:00Z", "d2026-03-09"},
		// It falls back on Sunday 2026-11-01: 01:30 happens twice, one day.
		{"NY first 01:30 EDT", daily, ny, "2026-11-01T05:30:00Z", "d2026-11-01"},
		{"NY second 01:30 EST", daily, ny, "2026-11-01T06:30:00Z", "d2026-11-01"},
		{"NY Sunday 2026-11-01 23:59 EST, week of Monday 10-26", weekly, ny, "2026-11-02T04:59:00Z", "w2026-10-26"},
		{"NY Monday 2026-11-02 00:00 EST", weekly, ny, "2026-11-02T05:00:00Z", "w2026-11-02"},
		{"NY Sunday before DST, same week", weekly, ny, "2026-03-08T05:00:00Z", "w2026-03-02"},
		{"NY Monday 2026-03-09 00:00 EDT", weekly, ny, "2026-03-09T04:00:00Z", "w2026-03-09"},
		// Paris springs forward on Sunday 2026-03-29: Monday starts at 22:00 UTC.
		{"Paris Sunday 23:59 CEST", weekly, paris, "2026-03-29T21:59:00Z", "w2026-03-23"},
		{"Paris Monday 00:00 CEST", weekly, paris, "2026-03-29T22:00:00Z", "w2026-03-30"},
		{"Paris Sunday 00:30 CET", daily, paris, "2026-03-28T23:30:00Z", "d2026-03-29"},
		{"Paris Saturday 23:59 CET", daily, paris, "2026-03-28T22:59:00Z", "d2026-03-28"},
		{"once ever", once, paris, "2026-03-28T22:59:00Z", ""},
	} {
		if got := c.offer.UsePeriod(utc(t, c.at), c.loc); got != c.want {
			t.Errorf("%s (%s): period %q, want %q", c.name, c.at, got, c.want)
		}
	}
	if p := loyalty.UsePeriods(utc(t, "2026-03-08T05:00:00Z"), ny); p != (loyalty.OfferPeriods{Day: "d2026-03-08", Week: "w2026-03-02", Month: "m2026-03"}) {
		t.Errorf("UsePeriods = %+v", p)
	}
}

// TestOfferWindow checks that a day-and-time offer matches local time on
// its weekdays, both ends included, on either side of a change of daylight
// saving time.
func TestOfferWindow(t *testing.T) {
	ny, paris := zone(t, "America/New_York"), zone(t, "Europe/Paris")
	sundays := loyalty.Offer{Frequency: loyalty.OfferDayTime, Days: []int{7}, PeakFrom: "09:00", PeakTo: "17:30"}
	for _, c := range []struct {
		loc  *time.Location
		at   string
		want bool
	}{
		{ny, "2026-03-01T14:00:00Z", true},     // Sunday 09:00 EST
		{ny, "2026-03-01T13:59:00Z", false},    // Sunday 08:59 EST
		{ny, "2026-03-08T13:00:00Z", true},     // Sunday 09:00 EDT, the DST day
		{ny, "2026-03-08T12:59:00Z", false},    // Sunday 08:59 EDT
		{ny, "2026-03-08T21:30:00Z", true},     // Sunday 17:30 EDT, the last minute
		{ny, "2026-03-08T21:31:00Z", false},    // Sunday 17:31 EDT
		{ny, "2026-03-09T14:00:00Z", false},    // Monday 10:00 EDT
		{ny, "2026-11-01T22:30:00Z", true},     // Sunday 17:30 EST, after falling back
		{ny, "2026-11-01T21:31:00Z", true},     // Sunday 16:31 EST
		{paris, "2026-03-29T07:00:00Z", true},  // Sunday 09:00 CEST
		{paris, "2026-03-29T06:59:00Z", false}, // Sunday 08:59 CEST
		{paris, "2026-03-22T08:00:00Z", true},  // Sunday 09:00 CET
		{paris, "2026-03-22T07:59:00Z", false}, // Sunday 08:59 CET
	} {
		if got := sundays.InWindow(utc(t, c.at), c.loc); got != c.want {
			t.Errorf("%s in %s: in window %v, want %v", c.at, c.loc, got, c.want)
		}
	}
	if !(loyalty.Offer{Frequency: loyalty.OfferDaily}).InWindow(utc(t, "2026-03-08T03:00:00Z"), ny) {
		t.Error("a daily offer is out of its window")
	}
}
