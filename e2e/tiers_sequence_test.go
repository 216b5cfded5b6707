package e2e

import (
	"net/http"
	"slices"
	"testing"
)

// TestTiersSequence (issue 11 item 7): tiers_sequence holds the reference
// platform's criterion codes ("1" spend, "2" points, "3" visits); levels
// are checked, and customers placed, on those criteria only.
func TestTiersSequence(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)

		// Points only, with the same spend and visits on every level: valid.
		levels := []any{tierLvl("VIP", 5, 1, 10), tierLvl("Platinum", 5, 1, 20), tierLvl("Gold", 5, 1, 30)}
		a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": levels}).
			wantFields(t, "tier_levels.1.reach_spend", "tier_levels.1.reach_visits")
		prog := a.do(t, http.MethodPost, "/tiers", map[string]any{"tiers_sequence": []string{"2"}, "tier_levels": levels}).tierOf(t)
		if !slices.Equal(prog.TiersSequence, []string{"2"}) || len(prog.TierLevels) != 3 || prog.TierLevels[2].ReachSpend != 5 ||
			prog.TierLevels[2].ReachVisits != 1 || prog.TierLevels[2].ReachPoints != 30 {
			t.Fatalf("points-only program: %+v", prog)
		}
		if got := a.get(t, tierPath(prog.ID)+"?relationships=tier_levels").tierOf(t); !slices.Equal(got.TiersSequence, []string{"2"}) {
			t.Errorf("read back tiers_sequence %v, want [2]", got.TiersSequence)
		}

		// Only points place a customer: 10.00 spent and one visit pass every
		// level's spend and visits, but 10 points reach VIP alone.
		c := a.createCustomer(t, map[string]any{"email": "points.only@x.example"})
		a.tierTransact(t, map[string]any{"intent": "reward", "amount": 10, "customer": map[string]any{"id": c.ID}})
		l, p := a.standingOf(t, c.ID)
		if l == nil || l.Name != "VIP" || p == nil || tierPtrS(p.NextTierLevel) != "Platinum" || tierPtrI(p.LeftPoints) != int64(10) ||
			p.LeftAmount != nil || p.LeftVisits != nil || p.TierProgress != 50 || p.TotalAmount != 10 || p.TotalVisits != 1 {
			t.Errorf("after 10.00 (10 points, 1 visit): %+v %+v, want VIP, 10 points left to Platinum, 50%%", l, p)
		}

		// Codes come as strings or numbers, kept in the order sent.
		two := a.do(t, http.MethodPost, "/tiers", map[string]any{"tiers_sequence": []any{3, "1"},
			"tier_levels": []any{tierLvl("Regular", 10, 2, 0), tierLvl("Star", 20, 4, 0)}}).tierOf(t)
		if !slices.Equal(two.TiersSequence, []string{"3", "1"}) {
			t.Errorf("tiers_sequence [3, \"1\"] stored as %v", two.TiersSequence)
		}
		// Without it, every criterion the levels set counts.
		derived := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Base", 0, 0, 0), tierLvl("Up", 0, 5, 50)}}).tierOf(t)
		if !slices.Equal(derived.TiersSequence, []string{"2", "3"}) {
			t.Errorf("derived tiers_sequence %v, want [2 3]", derived.TiersSequence)
		}

		// Refusals name the field.
		one := []any{tierLvl("A", 10, 1, 1)}
		post := func(body map[string]any) *result { t.Helper(); return a.do(t, http.MethodPost, "/tiers", body) }
		post(map[string]any{"tiers_sequence": []string{"VIP"}, "tier_levels": one}).wantFields(t, "tiers_sequence.0")
		post(map[string]any{"tiers_sequence": []any{"4"}, "tier_levels": one}).wantFields(t, "tiers_sequence.0")
		post(map[string]any{"tiers_sequence": []any{1, "1"}, "tier_levels": one}).wantFields(t, "tiers_sequence.1")
		post(map[string]any{"tiers_sequence": []any{}, "tier_levels": one}).wantFields(t, "tiers_sequence")
		post(map[string]any{"tiers_sequence": "1,2", "tier_levels": one}).wantFields(t, "tiers_sequence")
		post(map[string]any{"tiers_sequence": []any{"3"}, "tier_levels": []any{tierLvl("A", 0, 0, 0), tierLvl("B", 100, 0, 5)}}).
			wantFields(t, "tier_levels.1.reach_visits")

		// An update of the sequence alone checks the stored levels on it.
		a.do(t, http.MethodPut, tierPath(prog.ID), map[string]any{"tiers_sequence": []string{"1", "2"}}).wantFields(t, "tiers_sequence")
		if got := a.get(t, tierPath(prog.ID)).tierOf(t); !slices.Equal(got.TiersSequence, []string{"2"}) {
			t.Errorf("a refused update changed tiers_sequence to %v", got.TiersSequence)
		}
		up := a.do(t, http.MethodPut, tierPath(prog.ID), map[string]any{"tiers_sequence": []string{"1", "2"},
			"tier_levels": []any{tierLvl("VIP", 5, 1, 10), tierLvl("Gold", 50, 1, 30)}}).tierOf(t)
		if !slices.Equal(up.TiersSequence, []string{"1", "2"}) || len(up.TierLevels) != 2 {
			t.Errorf("updated %+v", up)
		}
		// The customer is now placed on spend and points: 10.00 and 10
		// points still hold VIP; Gold needs 40.00 more or 20 more points.
		a.do(t, http.MethodPut, tierPath(prog.ID), map[string]any{"enabled": true}).tierOf(t)
		l, p = a.standingOf(t, c.ID)
		if l == nil || l.Name != "VIP" || tierPtrS(p.NextTierLevel) != "Gold" || tierPtrF(p.LeftAmount) != 40.0 ||
			tierPtrI(p.LeftPoints) != int64(20) || p.LeftVisits != nil {
			t.Errorf("after the update: %+v %+v", l, p)
		}
	})
}

// TestProgramPaging (issue 11 item 7): GET /tiers and GET
// /referral-programs page like the other top-level lists.
func TestProgramPaging(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		var tiers, programs []string
		for i := range 3 {
			tr := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("L", float64(i+1), 0, 0)}}).tierOf(t)
			tiers = append(tiers, catID(map[string]any{"id": float64(tr.ID)}))
			p := a.do(t, http.MethodPost, "/referral-programs", map[string]any{"cond_min_amount": 1, "referee_earns": 1,
				"referer_earns": 1, "expires_in": 30}).programOf(t)
			programs = append(programs, catID(map[string]any{"id": float64(p.ID)}))
		}
		for _, c := range []struct {
			path string
			ids  []string
		}{{"tiers", tiers}, {"referral-programs", programs}} {
			p1 := a.catList(t, "/"+c.path+"?per_page=2")
			if p1.catTotal() != 3 || !slices.Equal(p1.catIDs(), c.ids[:2]) || p1.Cursor["count"] != 2.0 || p1.Cursor["next"] != 2.0 ||
				p1.Cursor["next_uri"] != c.path+"?page=2&per_page=2" {
				t.Errorf("%s page 1: %+v", c.path, p1)
			}
			p2 := a.catList(t, "/"+c.path+"?per_page=2&page=2")
			if !slices.Equal(p2.catIDs(), c.ids[2:]) || p2.Cursor["count"] != 1.0 || p2.Cursor["next"] != nil || p2.Cursor["next_uri"] != nil {
				t.Errorf("%s page 2: %+v", c.path, p2)
			}
			if all := a.catList(t, "/"+c.path); len(all.Data) != 3 || all.catTotal() != 3 || all.Cursor["next"] != nil {
				t.Errorf("%s default page: %+v", c.path, all)
			}
			a.get(t, "/"+c.path+"?per_page=0").wantFields(t, "per_page")
			a.get(t, "/"+c.path+"?per_page=101").wantFields(t, "per_page")
			a.get(t, "/"+c.path+"?page=0").wantFields(t, "page")
			a.get(t, "/"+c.path+"?enabled=eq|1").wantError(t, http.StatusBadRequest, "enabled")
		}
		if p := a.catList(t, "/tiers?per_page=1&relationships=tier_levels"); len(p.Data) != 1 ||
			p.Cursor["next_uri"] != "tiers?page=2&per_page=1&relationships=tier_levels" {
			t.Errorf("relationships kept in next_uri: %+v", p)
		}
	})
}
