package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
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
		bad(map[string]any{"name": "x", "effect": bonus, "limits": map[string]any{"per_customer": map[string]any{"count": 0, "period": "day"}}}, "limits.per_customer.count")
		bad(map[string]any{"name": "x", "effect": bonus, "limits": map[string]any{"budget": map[string]any{"points": 50, "period": "year"}}}, "limits.budget.period")
		bad(map[string]any{"name": "x", "effect": bonus, "limits": map[string]any{"per_visit": 1}}, "limits.per_visit")
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

// TestEarningRuleLimits: a once-a-day rule applies once to a customer
// whose 64 rewards arrive at once on two instances, and a budget of 70
// points is never passed by them; the dry run then says both are spent,
// and a change of a rule on one instance reaches the other.
func TestEarningRuleLimits(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		dsn := testenv.MigratedDSN(t, engine)
		one, two := startOn(t, dsn, roomy), startOn(t, dsn, roomy)
		a := one.owner(t, one.biz)
		b := &client{e: two, key: a.key, token: a.token}
		ann := a.createCustomer(t, map[string]any{"email": "ann@limits.example"})
		daily := fmt.Sprint(a.catData(t, http.MethodPost, "/earning-rules", map[string]any{"name": "Once a day", "effect": map[string]any{"type": "bonus", "points": 100},
			"limits": map[string]any{"per_customer": map[string]any{"count": 1, "period": "day"}}})["id"])
		budget := fmt.Sprint(a.catData(t, http.MethodPost, "/earning-rules", map[string]any{"name": "Launch", "effect": map[string]any{"type": "bonus", "points": 7},
			"limits": map[string]any{"budget": map[string]any{"points": 70, "period": "lifetime"}}})["id"])
		got := a.get(t, "/earning-rules/"+daily).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, got, "limits.per_customer.count", 1.0, "limits.per_customer.period", "day", "limits.budget", nil)

		const n = 64
		points := make([]int64, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := []*client{a, b}[i%2]
				req := c.request(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 1,
					"customer": map[string]any{"id": ann.ID}})
				res, err := c.e.http.Do(req)
				if err != nil {
					t.Errorf("reward %d: %v", i, err)
					return
				}
				defer res.Body.Close()
				var body struct{ Data struct{ Points int64 } }
				if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&body) != nil {
					t.Errorf("reward %d: %s", i, res.Status)
					return
				}
				points[i] = body.Data.Points
			}()
		}
		wg.Wait()
		var total, daily100, launch7 int64
		for _, p := range points {
			total += p
			if p >= 101 {
				daily100++
			}
			if p == 8 || p == 108 {
				launch7++
			}
		}
		if daily100 != 1 || launch7 != 10 || total != n+100+70 {
			t.Errorf("64 rewards at once: %d got the daily bonus (want 1), %d the launch bonus (want 10), %d points in all (want %d): %v",
				daily100, launch7, total, n+170, points)
		}
		bal := a.get(t, "/customers/"+ann.ID+"?include=balance").want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		if at(bal, "balance.points") != float64(n+170) {
			t.Errorf("balance %v, want %d", at(bal, "balance.points"), n+170)
		}

		// The dry run says both are spent; without a customer only the budget.
		reasons := func(c *client, body map[string]any) map[string]any {
			t.Helper()
			d := c.do(t, http.MethodPost, "/baskets/evaluate", body).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			out := map[string]any{}
			for _, r := range d["not_applied"].([]any) {
				out[r.(map[string]any)["rule_id"].(string)] = r.(map[string]any)["reason"]
			}
			return out
		}
		r := reasons(b, map[string]any{"amount": 1, "customer": map[string]any{"id": ann.ID}})
		wantAt(t, r, "rule-"+daily, "the customer has had it 1 times this day", "rule-"+budget, "its budget of 70 points in all has 0 left")

		// A change on one instance reaches the other.
		a.do(t, http.MethodPut, "/earning-rules/"+budget, map[string]any{"enabled": false}).want(t, http.StatusOK)
		deadline := time.Now().Add(10 * time.Second)
		for reasons(b, map[string]any{"amount": 1})["rule-"+budget] != "disabled" {
			if time.Now().After(deadline) {
				t.Fatalf("the other instance still evaluates the disabled rule after 10 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestEarningExclusions: a basket earns on what the program does not
// exclude: by default not on tax, shipping, discounts nor gift cards;
// then not on an excluded category, then on tax and full prices once the
// business says so. The reward's amount stays the basket's total.
func TestEarningExclusions(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		alcohol := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Alcohol"})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Gift card", "product_sku": "GC-25", "tags": []string{"GiftCard"}})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Wine", "product_sku": "WN-01", "category_id": alcohol["id"]})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Bread", "product_sku": "BR-01"})
		ann := a.createCustomer(t, map[string]any{"email": "ann@exclude.example"})
		basket := map[string]any{"items": []map[string]any{{"sku": "BR-01", "quantity": 2, "price": 3, "discount": 1},
			{"sku": "GC-25", "price": 25}, {"sku": "WN-01", "price": 10}}, "tax": 2, "shipping": 4}
		check := func(what string, points, eligible float64) {
			t.Helper()
			d := a.do(t, http.MethodPost, "/baskets/evaluate", basket).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			if d["points"] != points || d["eligible_amount"] != eligible {
				t.Errorf("%s: evaluated %v points on %v, want %v on %v", what, d["points"], d["eligible_amount"], points, eligible)
			}
			body := map[string]any{"intent": "reward", "customer": map[string]any{"id": ann.ID}}
			for k, v := range basket {
				body[k] = v
			}
			r := a.do(t, http.MethodPost, "/transactions", body).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			if r["points"] != points || r["amount"] != 40.0 {
				t.Errorf("%s: the reward earned %v points on an amount of %v, want %v on 40", what, r["points"], r["amount"], points)
			}
		}
		rules := a.get(t, "/rules").want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, rules, "earning.exclude.tax", true, "earning.exclude.shipping", true, "earning.exclude.discounts", true,
			"earning.exclude.giftcards", true)
		check("by default", 15, 15)

		a.do(t, http.MethodPatch, "/rules", map[string]any{"earning": map[string]any{"exclude": map[string]any{"categories": []any{alcohol["id"]}}}}).
			want(t, http.StatusOK)
		check("without alcohol", 5, 5)
		a.do(t, http.MethodPatch, "/rules", map[string]any{"exclude": map[string]any{"tax": false, "discounts": false}}).want(t, http.StatusOK)
		rules = a.get(t, "/rules").want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, rules, "earning.exclude.tax", false, "earning.exclude.discounts", false, "earning.exclude.shipping", true,
			"earning.exclude.categories.0", alcohol["id"])
		check("with tax and full prices", 8, 8)

		a.do(t, http.MethodPatch, "/rules", map[string]any{"earning": map[string]any{"exclude": map[string]any{"fuel": true}}}).
			wantFields(t, "earning.exclude.fuel")
		a.do(t, http.MethodPatch, "/rules", map[string]any{"exclude": map[string]any{"categories": []int{999999}}}).
			wantFields(t, "exclude.categories.0")
		a.do(t, http.MethodPatch, "/rules", map[string]any{"exclude": map[string]any{"tax": true}, "earning": map[string]any{"exclude": map[string]any{}}}).
			wantFields(t, "exclude")
		check("after the refusals", 8, 8)
	})
}
