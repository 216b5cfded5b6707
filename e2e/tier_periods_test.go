package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// tierChanges waits until a business's feed holds n tier.changed events
// and returns them as "from>to (reason) at changed_at".
func (c *client) tierChanges(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var p eventPage
		c.get(t, "/events?type=in|tier.changed&per_page=100").want(t, http.StatusOK).decode(t, &p)
		var out []string
		for _, e := range p.Data {
			d := dataOf(t, e)
			name := func(v any) string {
				if m, ok := v.(map[string]any); ok {
					return str(m["name"])
				}
				return "-"
			}
			out = append(out, fmt.Sprintf("%s>%s (%s) at %s", name(d["previous_tier_level"]), name(d["tier_level"]), d["reason"], d["changed_at"]))
		}
		if len(out) >= n || time.Now().After(deadline) {
			return out
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSandboxTierPeriods drives a sandbox business's quarterly tier
// program with a one_down policy through its clock: a reward lifts the
// customer to Gold (announced by the keeper), each quarter's end drops
// one level and says so in tier.changed, tier_level follows, and the
// policy is refused on a program that never resets.
func TestSandboxTierPeriods(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.sandboxBusiness(t))
		a.moveClock(t, map[string]any{"to": "2031-01-10T12:00:00+00:00"})
		tr := a.do(t, http.MethodPost, "/tiers", map[string]any{"reset_type": 1, "reset_period_month": 3, "downgrade_policy": "one_down",
			"tier_levels": []any{tierLvl("Member", 0, 0, 0), tierLvl("Silver", 100, 0, 0), tierLvl("Gold", 300, 0, 0)}}).tierOf(t)
		var shown struct {
			Data struct {
				DowngradePolicy string `json:"downgrade_policy"`
			}
		}
		a.get(t, tierPath(tr.ID)).want(t, http.StatusOK).decode(t, &shown)
		if shown.Data.DowngradePolicy != "one_down" {
			t.Fatalf("downgrade_policy %q", shown.Data.DowngradePolicy)
		}
		a.do(t, http.MethodPut, tierPath(tr.ID), map[string]any{"reset_type": 0}).wantFields(t, "downgrade_policy")
		a.do(t, http.MethodPut, tierPath(tr.ID), map[string]any{"downgrade_policy": "sometimes"}).wantFields(t, "downgrade_policy")

		cu := a.createCustomer(t, map[string]any{"email": "tiers@sandbox.example"})
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 350, "customer": map[string]any{"id": cu.ID}}).
			want(t, http.StatusOK)
		if got := a.tierChanges(t, 1); len(got) != 1 || !strings.HasPrefix(got[0], "Member>Gold (activity)") {
			t.Fatalf("after the reward: %q", got)
		}
		level := func() string {
			l, _ := a.standingOf(t, cu.ID)
			if l == nil {
				return ""
			}
			return l.Name
		}
		if got := level(); got != "Gold" {
			t.Fatalf("level %q, want Gold", got)
		}
		// Two quarters pass in one move: both ends, in order.
		a.moveClock(t, map[string]any{"advance": "P6M"})
		want := []string{"Member>Gold (activity)", "Gold>Silver (period_end) at 2031-04-01T00:00:00+00:00",
			"Silver>Member (period_end) at 2031-07-01T00:00:00+00:00"}
		got := a.tierChanges(t, 3)
		if len(got) != 3 || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("tier.changed %q, want %q", got, want)
		}
		if got := level(); got != "Member" {
			t.Errorf("level %q after two quarters, want Member", got)
		}
		// A reward in the new quarter lifts the customer again.
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 120, "customer": map[string]any{"id": cu.ID}}).
			want(t, http.StatusOK)
		if got := a.tierChanges(t, 4); len(got) != 4 || !strings.HasPrefix(got[3], "Member>Silver (activity)") {
			t.Errorf("after the second reward: %q", got)
		}
	})
}
