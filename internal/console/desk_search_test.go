package console

import (
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestSearchFilter: how the console's search box and filters read: an
// "@" makes an e-mail prefix, digits with separators a phone prefix (as
// typed, and as a national number of the business's country without its
// trunk 0), anything else a name prefix; joining dates are whole days in
// the business's time zone, the end day included.
func TestSearchFilter(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in   CustomerSearch
		want loyalty.CustomerFilter
		bad  []string
	}{
		{in: CustomerSearch{Query: " Ann.Lee@ "}, want: loyalty.CustomerFilter{EmailPrefix: "ann.lee@"}},
		{in: CustomerSearch{Query: "+1 604-555"}, want: loyalty.CustomerFilter{PhonePrefixes: []string{"+1604555"}}},
		{in: CustomerSearch{Query: "0044 20"}, want: loyalty.CustomerFilter{PhonePrefixes: []string{"+4420"}}},
		{in: CustomerSearch{Query: "06 12 34"}, want: loyalty.CustomerFilter{PhonePrefixes: []string{"+061234", "+3361234"}}},
		{in: CustomerSearch{Query: "12"}, want: loyalty.CustomerFilter{NamePrefix: "12"}},
		{in: CustomerSearch{Query: "  Ann   LEE "}, want: loyalty.CustomerFilter{NamePrefix: "ann lee"}},
		{in: CustomerSearch{Enabled: "no"}, want: loyalty.CustomerFilter{Enabled: new(bool)}},
		{in: CustomerSearch{Enabled: "maybe"}, bad: []string{"enabled"}},
		{in: CustomerSearch{JoinedFrom: "2026-03-01", JoinedTo: "2026-03-31"}, want: loyalty.CustomerFilter{
			JoinedFrom: time.Date(2026, 3, 1, 0, 0, 0, 0, paris), JoinedBefore: time.Date(2026, 4, 1, 0, 0, 0, 0, paris)}},
		{in: CustomerSearch{JoinedFrom: "2026-03-02", JoinedTo: "2026-03-01"}, bad: []string{"joined_to"}},
		{in: CustomerSearch{JoinedFrom: "01/03/2026"}, bad: []string{"joined_from"}},
	}
	for _, c := range cases {
		got, v := searchFilter(c.in, "FR", paris)
		var bad []string
		for f := range v {
			bad = append(bad, f)
		}
		if !slices.Equal(bad, c.bad) {
			t.Errorf("%+v: fields refused %v, want %v", c.in, bad, c.bad)
			continue
		}
		if c.bad != nil {
			continue
		}
		if got.NamePrefix != c.want.NamePrefix || got.EmailPrefix != c.want.EmailPrefix ||
			!slices.Equal(got.PhonePrefixes, c.want.PhonePrefixes) || (got.Enabled == nil) != (c.want.Enabled == nil) ||
			(got.Enabled != nil && *got.Enabled != *c.want.Enabled) ||
			!got.JoinedFrom.Equal(c.want.JoinedFrom) || !got.JoinedBefore.Equal(c.want.JoinedBefore) {
			t.Errorf("%+v: filter %+v, want %+v", c.in, got, c.want)
		}
	}
}
