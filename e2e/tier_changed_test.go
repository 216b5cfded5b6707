package e2e

import (
	"net/http"
	"testing"
)

// TestTierChangedWithItsTransaction is the integrator's case: a reward
// that lifts a customer to Silver, and the very next read of the feed
// holds the reward's transaction.created and then its tier.changed,
// naming the reward; a reward that moves no level writes no tier.changed.
// The tier keeper follows the feed in the background; a read of the feed
// catches it up first (EventService.KeepTiers).
func TestTierChangedWithItsTransaction(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		a.do(t, http.MethodPost, "/tiers", map[string]any{"reset_type": 1, "tiers_relation": 1,
			"tier_levels": []any{tierLvl("Member", 0, 0, 0), tierLvl("Silver", 100, 0, 0), tierLvl("Gold", 500, 0, 0)}}).tierOf(t)
		f := &feed{c: a}
		for len(f.next(t)) > 0 {
		}
		for i := range 8 {
			cu := a.createCustomer(t, map[string]any{"email": "climber" + string(rune('a'+i)) + "@x.example"})
			f.expect(t, "a new customer", "customer.created")
			reward := func(amount int) int64 {
				d := a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": amount,
					"customer": map[string]any{"id": cu.ID}}).want(t, http.StatusOK).dataOf(t)
				id, _ := d["id"].(float64)
				return int64(id)
			}
			small := reward(40)
			f.expect(t, "a reward short of Silver", "transaction.created")
			lift := reward(80)
			got := f.expect(t, "the reward that reaches Silver", "transaction.created", "tier.changed")
			d := dataOf(t, got[1])
			ref, _ := d["transaction"].(map[string]any)
			level, _ := d["tier_level"].(map[string]any)
			customer, _ := d["customer"].(map[string]any)
			if id, _ := ref["id"].(float64); int64(id) != lift || lift == small || level["name"] != "Silver" ||
				customer["id"] != cu.ID || d["reason"] != "activity" || d["direction"] != "up" {
				t.Fatalf("tier.changed %s, want customer %s up to Silver by transaction %d", got[1].Data, cu.ID, lift)
			}
		}
	})
}
