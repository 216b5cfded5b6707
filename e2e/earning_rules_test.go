package e2e

import (
	"fmt"
	"net/http"
	"testing"
)

// TestEarningRules: a business sets earning rules over its products and
// categories, schedules and channels; a reward and its dry run earn the
// same points through them, each rule listed with what it gave or why
// not; bad rules are refused by field, a rule naming what does not exist
// included.
func TestEarningRules(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		drinks := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Drinks"})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Coffee", "product_sku": "CF-01", "category_id": drinks["id"]})
		muffin := a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Muffin", "product_sku": "MU-01"})
		ann := a.createCustomer(t, map[string]any{"email": "ann@rules.example"})
		rule := func(body map[string]any) string {
			t.Helper()
			return fmt.Sprint(a.catData(t, http.MethodPost, "/earning-rules", body)["id"])
		}
		triple := rule(map[string]any{"name": "Triple on drinks", "conditions": map[string]any{"categories": []any{drinks["id"]}},
			"effect": map[string]any{"type": "multiplier", "factor": 3}})
		perMuffin := rule(map[string]any{"name": "10 a muffin", "conditions": map[string]any{"products": []any{muffin["id"]}},
			"effect": map[string]any{"type": "points_per_item", "points": 10}})
		late := rule(map[string]any{"name": "Late weekend", "schedule": map[string]any{"days": []string{"sat", "sun"}, "from": "22:00", "to": "02:00"},
			"effect": map[string]any{"type": "bonus", "points": 50}})
		big := rule(map[string]any{"name": "Big basket", "conditions": map[string]any{"min_amount": 30},
			"effect": map[string]any{"type": "bonus", "points": 20}})
		app := rule(map[string]any{"name": "App orders", "priority": 10, "exclusive": true,
			"conditions": map[string]any{"channels": []string{"app"}}, "effect": map[string]any{"type": "points_per_amount", "points": 5, "per_amount": 1}})

		got := a.get(t, "/earning-rules/"+late).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, got, "name", "Late weekend", "enabled", true, "priority", 0.0, "exclusive", false, "schedule.days.0", "sat",
			"schedule.days.1", "sun", "schedule.from", "22:00", "schedule.to", "02:00", "effect.type", "bonus", "effect.points", 50.0,
			"starts_at", nil, "ends_at", nil)
		var list catPage
		a.get(t, "/earning-rules").want(t, http.StatusOK).decode(t, &list)
		if list.Meta["total"] != 5.0 {
			t.Errorf("GET /earning-rules total %v, want 5", list.Meta["total"])
		}

		// 2 coffees at 4.00 and a muffin at 3.00, on a Wednesday noon:
		// 11 by the program's points, 16 more for the coffees tripled,
		// 10 for the muffin; the weekend bonus, the big-basket bonus and
		// the app rule do not apply.
		items := []map[string]any{{"sku": "CF-01", "quantity": 2, "price": 4}, {"sku": "MU-01", "price": 3}}
		evaluate := func(body map[string]any) (map[string]any, map[string]any) {
			t.Helper()
			d := a.do(t, http.MethodPost, "/baskets/evaluate", body).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			rules := map[string]any{}
			for _, list := range []string{"applied", "not_applied"} {
				for _, r := range d[list].([]any) {
					m := r.(map[string]any)
					m["list"] = list
					rules[m["rule_id"].(string)] = m
				}
			}
			return d, rules
		}
		d, rules := evaluate(map[string]any{"items": items, "at": "2026-12-02T12:00:00Z", "customer": map[string]any{"id": ann.ID}})
		wantAt(t, d, "points", 37.0, "eligible_amount", 11.0)
		wantAt(t, rules, "earning.points", 11.0, "rule-"+triple+".points", 16.0,
			"rule-"+perMuffin+".points", 10.0, "rule-"+late+".list", "not_applied", "rule-"+late+".reason", "outside its schedule",
			"rule-"+big+".list", "not_applied", "rule-"+app+".reason", "not on this channel")
		// A reward now earns what the evaluation now says (the late
		// weekend bonus may be open now).
		rewardNow := func() {
			t.Helper()
			now, _ := evaluate(map[string]any{"items": items, "customer": map[string]any{"id": ann.ID}})
			reward := a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "items": items,
				"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			if reward["points"] != now["points"] {
				t.Errorf("the reward earned %v points, the evaluation %v", reward["points"], now["points"])
			}
		}
		rewardNow()

		// The late weekend window runs past midnight: Saturday 23:00 and
		// Sunday 01:30 are in it, Monday 01:30 too (Sunday opened it),
		// Friday 23:00 and Saturday 03:00 are not.
		for at, want := range map[string]string{"2026-12-05T23:00:00Z": "applied", "2026-12-06T01:30:00Z": "applied",
			"2026-12-07T01:30:00Z": "applied", "2026-12-04T23:00:00Z": "not_applied", "2026-12-05T03:00:00Z": "not_applied"} {
			_, rules := evaluate(map[string]any{"amount": 5, "at": at})
			if rules["rule-"+late].(map[string]any)["list"] != want {
				t.Errorf("at %s the late weekend bonus is %v, want %s", at, rules["rule-"+late].(map[string]any)["list"], want)
			}
		}

		// An exclusive rule that applies leaves every rule after it out,
		// the program's points included: 5 points for each 1.00.
		d, rules = evaluate(map[string]any{"items": items, "channel": "app", "at": "2026-12-02T12:00:00Z"})
		wantAt(t, d, "points", 55.0)
		wantAt(t, rules, "rule-"+app+".points", 55.0, "earning.list", "not_applied",
			"rule-"+triple+".reason", "left out: the exclusive rule “App orders” applied")

		// A big basket gets its bonus; an amount without items gets no
		// product rule.
		d, rules = evaluate(map[string]any{"amount": 40, "at": "2026-12-02T12:00:00Z"})
		wantAt(t, d, "points", 60.0)
		wantAt(t, rules, "rule-"+big+".points", 20.0, "rule-"+perMuffin+".reason", "the sale names no items")

		// Disabled, changed, deleted.
		a.do(t, http.MethodPut, "/earning-rules/"+big, map[string]any{"enabled": false}).want(t, http.StatusOK)
		if d, _ := evaluate(map[string]any{"amount": 40}); d["points"] != 40.0 {
			t.Errorf("with the big-basket rule disabled 40.00 earns %v, want 40", d["points"])
		}
		a.do(t, http.MethodPut, "/earning-rules/"+triple, map[string]any{"effect": map[string]any{"type": "multiplier", "factor": 2}}).
			want(t, http.StatusOK)
		if d, _ := evaluate(map[string]any{"items": items, "at": "2026-12-02T12:00:00Z"}); d["points"] != 29.0 {
			t.Errorf("with drinks doubled the basket earns %v, want 29", d["points"])
		}
		a.do(t, http.MethodDelete, "/earning-rules/"+perMuffin, nil).want(t, http.StatusNoContent)
		a.get(t, "/earning-rules/"+perMuffin).wantError(t, http.StatusNotFound)
		if d, _ := evaluate(map[string]any{"items": items, "at": "2026-12-02T12:00:00Z"}); d["points"] != 19.0 {
			t.Errorf("without the muffin rule the basket earns %v, want 19", d["points"])
		}
		rewardNow()

		// Bad rules are refused by field; nothing is written.
		bad := func(body map[string]any, field string) {
			t.Helper()
			a.do(t, http.MethodPost, "/earning-rules", body).wantFields(t, field)
		}
		bonus := map[string]any{"type": "bonus", "points": 5}
		bad(map[string]any{"name": "x"}, "effect")
		bad(map[string]any{"effect": bonus}, "name")
		bad(map[string]any{"name": "x", "effect": map[string]any{"type": "lottery"}}, "effect.type")
		bad(map[string]any{"name": "x", "effect": map[string]any{"type": "multiplier", "factor": 1}}, "effect.factor")
		bad(map[string]any{"name": "x", "effect": map[string]any{"type": "bonus", "points": 5, "factor": 2}}, "effect.factor")
		bad(map[string]any{"name": "x", "effect": map[string]any{"type": "points_per_amount", "points": 5}}, "effect.per_amount")
		bad(map[string]any{"name": "x", "effect": bonus, "schedule": map[string]any{"from": "25:00", "to": "02:00"}}, "schedule.from")
		bad(map[string]any{"name": "x", "effect": bonus, "schedule": map[string]any{"from": "10:00"}}, "schedule.to")
		bad(map[string]any{"name": "x", "effect": bonus, "schedule": map[string]any{"days": []string{"funday"}}}, "schedule.days.0")
		bad(map[string]any{"name": "x", "effect": bonus, "conditions": map[string]any{"products": []int{999999}}}, "conditions.products.0")
		bad(map[string]any{"name": "x", "effect": bonus, "conditions": map[string]any{"categories": []int{999999}}}, "conditions.categories.0")
		bad(map[string]any{"name": "x", "effect": bonus, "conditions": map[string]any{"branches": []string{"01a2f0c0c0c0c0c0c0c0c0c0c0c0c0c0"}}}, "conditions.branches.0")
		bad(map[string]any{"name": "x", "effect": bonus, "conditions": map[string]any{"min_amout": 5}}, "conditions.min_amout")
		bad(map[string]any{"name": "x", "effect": bonus, "conditions": map[string]any{"tier_levels": []int{1}}}, "conditions.tier_levels")
		bad(map[string]any{"name": "x", "effect": bonus, "limits": map[string]any{"per_customer": map[string]any{"count": 1, "period": "day"}}}, "limits")
		bad(map[string]any{"name": "x", "effect": bonus, "starts_at": "2027-01-02", "ends_at": "2027-01-01"}, "ends_at")
		a.get(t, "/earning-rules").want(t, http.StatusOK).decode(t, &list)
		if list.Meta["total"] != 4.0 {
			t.Errorf("after the refusals GET /earning-rules total %v, want 4", list.Meta["total"])
		}
		a.get(t, "/earning-rules/abc").wantError(t, http.StatusBadRequest)

		// Another business sees none of them.
		other := e.owner(t, e.newBusiness(t, "Other Rules Café"))
		other.get(t, "/earning-rules/"+late).wantError(t, http.StatusNotFound)
		other.do(t, http.MethodPut, "/earning-rules/"+late, map[string]any{"enabled": false}).wantError(t, http.StatusNotFound)
	})
}
