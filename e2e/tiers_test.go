package e2e

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

// tierJSON is a tier program as the API shows it.
type tierJSON struct {
	ID                 int64    `json:"id"`
	TiersSequence      []string `json:"tiers_sequence"`
	TiersRelation      int      `json:"tiers_relation"`
	ResetType          int      `json:"reset_type"`
	ResetPeriodMonth   int      `json:"reset_period_month"`
	BasePreviousPeriod int      `json:"base_previous_period"`
	Enabled            bool     `json:"enabled"`
	TierLevels         []struct {
		ID          int64   `json:"id"`
		Name        string  `json:"name"`
		ReachSpend  float64 `json:"reach_spend"`
		ReachVisits int64   `json:"reach_visits"`
		ReachPoints int64   `json:"reach_points"`
	} `json:"tier_levels"`
}

// tierOf decodes a `{data: tier}` body.
func (r *result) tierOf(t *testing.T) tierJSON {
	t.Helper()
	var out struct{ Data tierJSON }
	r.want(t, http.StatusOK).decode(t, &out)
	return out.Data
}

// tierList gets GET /tiers.
func (c *client) tierList(t *testing.T) []tierJSON {
	t.Helper()
	var out struct{ Data []tierJSON }
	c.get(t, "/tiers").want(t, http.StatusOK).decode(t, &out)
	return out.Data
}

// enabledTierIDs returns the ids of the enabled programs of GET /tiers.
func (c *client) enabledTierIDs(t *testing.T) []int64 {
	t.Helper()
	var ids []int64
	for _, tr := range c.tierList(t) {
		if tr.Enabled {
			ids = append(ids, tr.ID)
		}
	}
	return ids
}

// tierLvl is a tier level body.
func tierLvl(name string, spend float64, visits, points int) map[string]any {
	return map[string]any{"name": name, "reach_spend": spend, "reach_visits": visits, "reach_points": points}
}

func tierPath(id int64) string { return "/tiers/" + strconv.FormatInt(id, 10) }

func TestTiers(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		other := e.newBusiness(t, "Bakery Two")
		b := e.owner(t, other)

		if got := a.tierList(t); len(got) != 0 {
			t.Fatalf("a new business lists tiers %+v", got)
		}
		first := a.do(t, http.MethodPost, "/tiers", map[string]any{"reset_type": 1, "tiers_relation": 1,
			"tier_levels": []any{tierLvl("Member", 0, 0, 0), tierLvl("Silver", 100, 3, 0), tierLvl("Gold", 500.5, 10, 1000)}}).tierOf(t)
		if first.ID == 0 || !slices.Equal(first.TiersSequence, []string{"1", "2", "3"}) || first.TiersRelation != 1 ||
			first.ResetType != 1 || first.ResetPeriodMonth != 12 || first.BasePreviousPeriod != 0 || !first.Enabled || len(first.TierLevels) != 3 ||
			first.TierLevels[2].ReachSpend != 500.5 || first.TierLevels[2].ReachPoints != 1000 || first.TierLevels[1].ReachVisits != 3 {
			t.Fatalf("created %+v", first)
		}
		got := a.get(t, tierPath(first.ID)+"?relationships=tier_levels").tierOf(t)
		if got.ID != first.ID || len(got.TierLevels) != 3 || got.TierLevels[0] != first.TierLevels[0] {
			t.Errorf("read back %+v", got)
		}

		t.Run("one enabled at a time", func(t *testing.T) {
			second := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Bronze", 10, 0, 0)}}).tierOf(t)
			a.do(t, http.MethodPost, "/tiers", map[string]any{"enabled": false, "tier_levels": []any{tierLvl("Off", 10, 0, 0)}}).tierOf(t)
			if ids := a.enabledTierIDs(t); !slices.Equal(ids, []int64{second.ID}) {
				t.Errorf("enabled %v, want only the newest enabled %d", ids, second.ID)
			}
			a.do(t, http.MethodPut, tierPath(first.ID), map[string]any{"enabled": true}).tierOf(t)
			if ids := a.enabledTierIDs(t); !slices.Equal(ids, []int64{first.ID}) {
				t.Errorf("enabled %v, want only %d after enabling it", ids, first.ID)
			}
			if n := len(a.tierList(t)); n != 3 {
				t.Errorf("%d programs listed, want 3", n)
			}
		})

		t.Run("update replaces the levels", func(t *testing.T) {
			gold := first.TierLevels[2]
			up := a.do(t, http.MethodPut, tierPath(first.ID), map[string]any{"reset_type": 2, "reset_period_month": 6, "base_previous_period": 1,
				"tier_levels": []any{tierLvl("Silver", 150, 0, 0), map[string]any{"id": gold.ID, "name": "Golden", "reach_spend": 600}}}).tierOf(t)
			if !slices.Equal(up.TiersSequence, []string{"1"}) || up.TierLevels[1].ID != gold.ID || up.TierLevels[1].ReachSpend != 600 ||
				up.TierLevels[1].ReachVisits != 0 || up.TierLevels[0].ID == first.TierLevels[1].ID || up.ResetType != 2 ||
				up.ResetPeriodMonth != 6 || up.BasePreviousPeriod != 1 || up.TiersRelation != 1 || !up.Enabled {
				t.Errorf("updated %+v", up)
			}
			if got := a.get(t, tierPath(first.ID)).tierOf(t); !slices.Equal(got.TiersSequence, up.TiersSequence) || got.TierLevels[0].ID != up.TierLevels[0].ID {
				t.Errorf("read back %+v, want %+v", got, up)
			}
			// Fields not sent keep their values.
			if got := a.do(t, http.MethodPut, tierPath(first.ID), map[string]any{"tiers_relation": 0}).tierOf(t); len(got.TierLevels) != 2 || got.ResetType != 2 {
				t.Errorf("a partial update changed more: %+v", got)
			}
			a.do(t, http.MethodPut, tierPath(first.ID), map[string]any{"tier_levels": []any{map[string]any{"id": 1 << 40, "name": "X", "reach_spend": 1}}}).
				wantFields(t, "tier_levels.0.id")
		})

		t.Run("validation", func(t *testing.T) {
			post := func(body any) *result {
				t.Helper()
				return a.do(t, http.MethodPost, "/tiers", body)
			}
			one := []any{tierLvl("Silver", 100, 0, 0)}
			post(map[string]any{}).wantFields(t, "tier_levels")
			post(map[string]any{"tier_levels": []any{}}).wantFields(t, "tier_levels")
			post(map[string]any{"tiers_relation": 2, "reset_type": 3, "reset_period_month": 0, "base_previous_period": 5, "tier_levels": one}).
				wantFields(t, "tiers_relation", "reset_type", "reset_period_month", "base_previous_period")
			post(map[string]any{"enabled": nil, "tier_levels": one}).wantFields(t, "enabled")
			post(map[string]any{"tiers_relation": "any", "tier_levels": one}).wantFields(t, "tiers_relation")
			post(map[string]any{"tier_levels": []any{map[string]any{"reach_spend": 5}}}).wantFields(t, "tier_levels.0.name")
			post(map[string]any{"tier_levels": []any{tierLvl("A", -1, 0, 0)}}).wantFields(t, "tier_levels.0.reach_spend")
			post(map[string]any{"tier_levels": []any{tierLvl("A", 200, 0, 0), tierLvl("B", 100, 0, 0)}}).wantFields(t, "tier_levels.1.reach_spend")
			post(map[string]any{"tier_levels": []any{tierLvl("A", 0, 0, 0), tierLvl("B", 0, 0, 0)}}).wantFields(t, "tier_levels.1.reach_spend")
			post(map[string]any{"tier_levels": []any{tierLvl("A", 0, 5, 0), tierLvl("a", 0, 6, 0)}}).wantFields(t, "tier_levels.1.name")
			post(`{"tier_levels": [{"name": "A", "reach_spend": 1.005}]}`).want(t, http.StatusUnprocessableEntity)
			post(`{"tier_levels": [`).wantError(t, http.StatusBadRequest)
			if n := len(a.tierList(t)); n != 3 {
				t.Errorf("refused creates left programs: %d listed, want 3", n)
			}
		})

		t.Run("not found and bad ids", func(t *testing.T) {
			a.get(t, "/tiers/999999").wantError(t, http.StatusNotFound, "Tier")
			a.do(t, http.MethodPut, "/tiers/999999", map[string]any{"enabled": true}).wantError(t, http.StatusNotFound)
			a.get(t, "/tiers/abc").wantError(t, http.StatusBadRequest)
			a.get(t, "/tiers/0").wantError(t, http.StatusBadRequest)
			a.do(t, http.MethodPut, "/tiers/-3", map[string]any{}).wantError(t, http.StatusBadRequest)
			a.get(t, "/tiers?relationships=owner").wantError(t, http.StatusBadRequest, "owner")
		})

		t.Run("tenant isolation", func(t *testing.T) {
			b.get(t, tierPath(first.ID)).wantError(t, http.StatusNotFound)
			b.do(t, http.MethodPut, tierPath(first.ID), map[string]any{"enabled": false}).wantError(t, http.StatusNotFound)
			if got := b.tierList(t); len(got) != 0 {
				t.Errorf("another business lists %+v", got)
			}
			theirs := b.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Theirs", 1, 0, 0)}}).tierOf(t)
			if ids := a.enabledTierIDs(t); !slices.Equal(ids, []int64{first.ID}) {
				t.Errorf("another business's program changed ours: enabled %v", ids)
			}
			a.get(t, tierPath(theirs.ID)).wantError(t, http.StatusNotFound)
			if got := a.get(t, tierPath(first.ID)).tierOf(t); !got.Enabled {
				t.Errorf("ours was disabled by theirs")
			}
		})
	})
}

// tierLevelView is the included tier_level of a customer.
type tierLevelView struct {
	ID         int64   `json:"id"`
	Name       string  `json:"name"`
	ReachSpend float64 `json:"reach_spend"`
}

// tierProgressView is the included tier_progress of a customer.
type tierProgressView struct {
	TotalAmount   float64  `json:"total_amount"`
	TotalPoints   int64    `json:"total_points"`
	TotalVisits   int64    `json:"total_visits"`
	LeftAmount    *float64 `json:"left_amount"`
	LeftPoints    *int64   `json:"left_points"`
	LeftVisits    *int64   `json:"left_visits"`
	TiersRelation int      `json:"tiers_relation"`
	StartDate     *string  `json:"start_date"`
	EndDate       *string  `json:"end_date"`
	TierLevel     *string  `json:"tier_level"`
	NextTierLevel *string  `json:"next_tier_level"`
	TierProgress  float64  `json:"tier_progress"`
}

// standingOf reads a customer's tier_level and tier_progress, which must
// both be present (null or not).
func (c *client) standingOf(t *testing.T, customerID string) (*tierLevelView, *tierProgressView) {
	t.Helper()
	r := c.get(t, "/customers/"+customerID+"?include=tier_level,tier_progress").want(t, http.StatusOK)
	var raw struct{ Included map[string]any }
	r.decode(t, &raw)
	if _, ok := raw.Included["tier_level"]; !ok {
		t.Fatalf("no tier_level in %s", r.Body)
	}
	if _, ok := raw.Included["tier_progress"]; !ok {
		t.Fatalf("no tier_progress in %s", r.Body)
	}
	var out struct {
		Included struct {
			TierLevel    *tierLevelView    `json:"tier_level"`
			TierProgress *tierProgressView `json:"tier_progress"`
		} `json:"included"`
	}
	r.decode(t, &out)
	return out.Included.TierLevel, out.Included.TierProgress
}

// tierTransact posts a transaction that must succeed and returns its data.
func (c *client) tierTransact(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	var out struct{ Data map[string]any }
	c.do(t, http.MethodPost, "/transactions", body).want(t, http.StatusOK).decode(t, &out)
	return out.Data
}

func tierPtrF(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func tierPtrI(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func tierPtrS(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// TestTierProgress follows a customer's tier level and progress through
// rewards by amount (per_spend), redemptions, returns and rewards by
// visits (per_visit).
func TestTierProgress(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)

		t.Run("per_spend", func(t *testing.T) {
			c := a.createCustomer(t, map[string]any{"email": "spender@x.example"})
			if l, p := a.standingOf(t, c.ID); l != nil || p != nil {
				t.Fatalf("without a tier program: tier_level %+v, tier_progress %+v; want null", l, p)
			}
			prog := a.do(t, http.MethodPost, "/tiers", map[string]any{"reset_type": 1, "reset_period_month": 12,
				"tier_levels": []any{tierLvl("Member", 0, 0, 0), tierLvl("Silver", 100, 3, 0), tierLvl("Gold", 300, 0, 0)}}).tierOf(t)
			l, p := a.standingOf(t, c.ID)
			if l == nil || l.Name != "Member" || l.ID != prog.TierLevels[0].ID || p == nil || tierPtrS(p.TierLevel) != "Member" ||
				tierPtrS(p.NextTierLevel) != "Silver" || tierPtrF(p.LeftAmount) != 100.0 || tierPtrI(p.LeftVisits) != int64(3) || p.LeftPoints != nil ||
				p.TierProgress != 0 || p.TotalAmount != 0 {
				t.Fatalf("before any reward: %+v %+v", l, p)
			}
			year := strconv.Itoa(time.Now().UTC().Year())
			if tierPtrS(p.StartDate) != year+"-01-01T00:00:00+00:00" || tierPtrS(p.EndDate) != strconv.Itoa(time.Now().UTC().Year()+1)+"-01-01T00:00:00+00:00" {
				t.Errorf("period %s – %s, want this calendar year", tierPtrS(p.StartDate), tierPtrS(p.EndDate))
			}
			customer := map[string]any{"id": c.ID}
			a.tierTransact(t, map[string]any{"intent": "reward", "amount": 50, "customer": customer})
			_, p = a.standingOf(t, c.ID)
			if p.TotalAmount != 50 || p.TotalVisits != 1 || p.TotalPoints != 50 || tierPtrF(p.LeftAmount) != 50.0 ||
				tierPtrI(p.LeftVisits) != int64(2) || p.TierProgress != 50 {
				t.Errorf("after 50.00: %+v, want 50.00 left and 50%%", p)
			}
			a.tierTransact(t, map[string]any{"intent": "reward", "amount": 60.25, "customer": customer})
			l, p = a.standingOf(t, c.ID)
			if l == nil || l.Name != "Silver" || tierPtrS(p.NextTierLevel) != "Gold" || tierPtrF(p.LeftAmount) != 189.75 || p.LeftVisits != nil ||
				p.TierProgress != 36.75 {
				t.Errorf("after 110.25: %+v %+v, want Silver, 189.75 left to Gold, 36.75%%", l, p)
			}
			// Redeeming never lowers a tier.
			a.tierTransact(t, map[string]any{"intent": "redeem", "points": 100, "customer": customer})
			if l, p2 := a.standingOf(t, c.ID); l == nil || l.Name != "Silver" || p2.TotalPoints != 110 || p2.TotalAmount != 110.25 {
				t.Errorf("after redeeming 100 points: %+v %+v, want Silver on 110 points earned", l, p2)
			}
			// A return takes its spend back.
			a.tierTransact(t, map[string]any{"intent": "return", "amount": 20, "customer": customer})
			if l, p2 := a.standingOf(t, c.ID); l == nil || l.Name != "Member" || p2.TotalAmount != 90.25 {
				t.Errorf("after returning 20.00: %+v %+v, want Member on 90.25", l, p2)
			}
			// Disabling the program takes the standing away.
			a.do(t, http.MethodPut, tierPath(prog.ID), map[string]any{"enabled": false}).tierOf(t)
			if l, p := a.standingOf(t, c.ID); l != nil || p != nil {
				t.Errorf("with the program disabled: %+v %+v, want null", l, p)
			}
			// relationships=tier_levels lists the levels under include=tiers.
			var withTiers struct {
				Included struct{ Tiers []tierJSON } `json:"included"`
			}
			a.get(t, "/customers/"+c.ID+"?include=tiers&relationships=tier_levels").want(t, http.StatusOK).decode(t, &withTiers)
			if ts := withTiers.Included.Tiers; len(ts) != 1 || len(ts[0].TierLevels) != 3 || ts[0].Enabled {
				t.Errorf("include=tiers: %+v", ts)
			}
		})

		t.Run("per_visit, all criteria", func(t *testing.T) {
			other := e.newBusiness(t, "Barber")
			v := e.owner(t, other)
			v.do(t, http.MethodPost, "/tiers", map[string]any{"tiers_relation": 1,
				"tier_levels": []any{tierLvl("Regular", 0, 3, 0), tierLvl("VIP", 0, 6, 6)}}).tierOf(t)
			c := v.createCustomer(t, map[string]any{"email": "visitor@x.example"})
			customer := map[string]any{"id": c.ID}
			v.tierTransact(t, map[string]any{"intent": "reward", "visits": 2, "customer": customer})
			l, p := v.standingOf(t, c.ID)
			if l != nil || p == nil || p.TierLevel != nil || tierPtrS(p.NextTierLevel) != "Regular" || tierPtrI(p.LeftVisits) != int64(1) ||
				p.LeftAmount != nil || p.LeftPoints != nil || p.TierProgress != 66.66 || p.TiersRelation != 1 || p.StartDate != nil || p.EndDate != nil {
				t.Errorf("after 2 visits: %+v %+v, want no level, 1 visit left to Regular, 66.66%%", l, p)
			}
			v.tierTransact(t, map[string]any{"intent": "reward", "visits": 2, "customer": customer})
			l, p = v.standingOf(t, c.ID)
			if l == nil || l.Name != "Regular" || tierPtrS(p.NextTierLevel) != "VIP" || tierPtrI(p.LeftVisits) != int64(2) ||
				tierPtrI(p.LeftPoints) != int64(2) || p.TierProgress != 66.66 || p.TotalPoints != 4 {
				t.Errorf("after 4 visits: %+v %+v, want Regular, 2 visits and 2 points left to VIP", l, p)
			}
			v.tierTransact(t, map[string]any{"intent": "reward", "visits": 2, "customer": customer})
			if l, p := v.standingOf(t, c.ID); l == nil || l.Name != "VIP" || p.NextTierLevel != nil || p.TierProgress != 100 ||
				p.LeftVisits != nil {
				t.Errorf("after 6 visits: %+v %+v, want VIP at the top", l, p)
			}
			// The other business's customers see its own program only.
			if l, p := a.standingOf(t, a.createCustomer(t, map[string]any{"email": "elsewhere@x.example"}).ID); l != nil || p != nil {
				t.Errorf("a program of another business shows: %+v %+v", l, p)
			}
		})
	})
}
