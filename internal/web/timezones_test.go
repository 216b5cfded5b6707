package web

import (
	"testing"
	"time"
)

// TestZoneGroups: every time zone the profile offers is one Go loads
// (the domain refuses any other), grouped by region with UTC first; a
// saved zone not in the list is offered, so saving keeps it.
func TestZoneGroups(t *testing.T) {
	groups := zoneGroups("Europe/Amsterdam")
	if groups[0].Zones[0].Value != "UTC" || len(groups[0].Zones) != 1 {
		t.Errorf("first group %+v, want UTC alone", groups[0])
	}
	found := false
	for _, g := range groups {
		for _, z := range g.Zones {
			if _, err := time.LoadLocation(z.Value); err != nil {
				t.Errorf("%s offered, but it does not load: %v", z.Value, err)
			}
			if z.Value == "Europe/Amsterdam" {
				found = z.Label == "Amsterdam (Netherlands)" && g.Region == "Europe"
			}
		}
	}
	if !found {
		t.Error("Europe/Amsterdam is not offered as Amsterdam (Netherlands) under Europe")
	}
	if g := zoneGroups("Etc/GMT+5"); len(g[0].Zones) != 2 || g[0].Zones[1].Value != "Etc/GMT+5" {
		t.Errorf("a saved zone outside the list: %+v", g[0])
	}
}
