package web

import (
	"testing"
	"time"
)

// TestDashboardWords: periods, the period compared with, percentages and
// counts read as a person writes them.
func TestDashboardWords(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"2026-10-01", "2026-10-31", "Oct 1 – 31, 2026"},
		{"2026-09-28", "2026-10-04", "Sep 28 – Oct 4, 2026"},
		{"2025-12-01", "2026-01-31", "Dec 1, 2025 – Jan 31, 2026"},
		{"2026-10-04", "2026-10-04", "Oct 4, 2026"},
	} {
		if got := periodWords(c.from, c.to); got != c.want {
			t.Errorf("periodWords(%s, %s) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
	if long, short := comparedWords("2026-10-01", "2026-10-31", "2026-09-01", "2026-09-30"); long != "September 2026" || short != "Sep 2026" {
		t.Errorf("a month against %q, %q", long, short)
	}
	if long, _ := comparedWords("2026-10-02", "2026-10-31", "2026-09-02", "2026-10-01"); long != "the previous 30 days" {
		t.Errorf("30 days against %q", long)
	}
	for bp, want := range map[int64]string{26100: "261%", 8050: "80.5%", -500: "−5%", 0: "0%", 123456: "1,234.6%"} {
		if got := percent(bp); got != want {
			t.Errorf("percent(%d) = %q, want %q", bp, got, want)
		}
	}
	if got := thousands(1234567); got != "1,234,567" {
		t.Errorf("thousands = %q", got)
	}
}

// TestPresets: the presets at a day are the last 7, 30 and 90 days, this
// month so far and last month; the one shown is marked, and the branch
// kept.
func TestPresets(t *testing.T) {
	today := time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)
	ps, custom := presets(today, "2026-02-01", "2026-02-28", "br1")
	if custom || len(ps) != 5 {
		t.Fatalf("presets %+v, custom %v", ps, custom)
	}
	want := []string{"from=2026-03-09&to=2026-03-15", "from=2026-02-14&to=2026-03-15", "from=2025-12-16&to=2026-03-15",
		"from=2026-03-01&to=2026-03-15", "from=2026-02-01&to=2026-02-28"}
	for i, p := range ps {
		if p.Href != dashboardHome+"?branch=br1&"+want[i] {
			t.Errorf("%s: %s, want %s", p.Label, p.Href, want[i])
		}
		if p.Current != (p.Label == "Last month") {
			t.Errorf("%s marked %v", p.Label, p.Current)
		}
	}
	if _, custom := presets(today, "2026-01-03", "2026-01-09", ""); !custom {
		t.Error("a period of no preset is not custom")
	}
}
