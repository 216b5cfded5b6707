package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"reflect"
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
		if d, _ := evaluate(map[string]any{"amount": 40, "at": "2026-12-02T12:00:00Z"}); d["points"] != 40.0 {
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
		bad(map[string]any{"name": "x", "effect": bonus, "conditions": map[string]any{"tier_levels": []int{999999}}}, "conditions.tier_levels.0")
		bad(map[string]any{"name": "x", "effect": bonus, "conditions": map[string]any{"birthday_within_days": 40}}, "conditions.birthday_within_days")
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

// TestReturnByItem: returning some units of a reward takes back exactly
// what they earned (their line's share of every rule), the last return
// takes back the rest, never more; more units than remain, a SKU the
// reward did not hold, a cancelled reward and a second whole return are
// refused by field.
func TestReturnByItem(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		drinks := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Drinks"})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Coffee", "product_sku": "CF-01", "category_id": drinks["id"]})
		muffin := a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Muffin", "product_sku": "MU-01"})
		a.catData(t, http.MethodPost, "/earning-rules", map[string]any{"name": "Triple on drinks",
			"conditions": map[string]any{"categories": []any{drinks["id"]}}, "effect": map[string]any{"type": "multiplier", "factor": 3}})
		a.catData(t, http.MethodPost, "/earning-rules", map[string]any{"name": "10 a muffin",
			"conditions": map[string]any{"products": []any{muffin["id"]}}, "effect": map[string]any{"type": "points_per_item", "points": 10}})
		ann := a.createCustomer(t, map[string]any{"email": "ann@returns.example"})
		post := func(body map[string]any) *result {
			t.Helper()
			body["customer"] = map[string]any{"id": ann.ID}
			return a.do(t, http.MethodPost, "/transactions", body)
		}
		// 3 coffees (12.00) and 2 muffins (6.00): 18 by the program, 24
		// more for the coffees tripled, 20 for the muffins; the coffees'
		// line earned 36, the muffins' 26.
		sale := post(map[string]any{"intent": "reward", "items": []map[string]any{{"sku": "CF-01", "quantity": 3, "price": 4},
			{"sku": "MU-01", "quantity": 2, "price": 3}}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, sale, "points", 62.0, "items.0.points", 36.0, "items.1.points", 26.0)
		id := sale["id"]

		ret := func(items any) *result {
			t.Helper()
			body := map[string]any{"intent": "return", "reverses_id": id}
			if items != nil {
				body["items"] = items
			}
			return post(body)
		}
		r := ret([]map[string]any{{"sku": "CF-01", "quantity": 1}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, r, "points", -12.0, "amount", 4.0, "reverses_id", id, "items.0.sku", "CF-01", "items.0.quantity", 1.0, "items.0.points", 12.0,
			"balance.points", 50.0)
		ret([]map[string]any{{"sku": "MU-01", "quantity": 3}}).wantFields(t, "items.0.quantity")
		ret([]map[string]any{{"sku": "ZZ-99"}}).wantFields(t, "items.0.sku")
		ret([]map[string]any{{"sku": "MU-01", "price": 3}}).wantFields(t, "items.0.price")
		r = ret([]map[string]any{{"sku": "MU-01"}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, r, "points", -13.0, "amount", 3.0)
		// The rest: 2 coffees (24) and a muffin (13).
		r = ret(nil).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, r, "points", -37.0, "amount", 11.0, "balance.points", 0.0)
		ret(nil).wantFields(t, "reverses_id")
		ret([]map[string]any{{"sku": "CF-01"}}).wantFields(t, "items.0.quantity")

		// A reward without items is returned whole, once; a cancelled one not at all.
		plain := post(map[string]any{"intent": "reward", "amount": 9}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		post(map[string]any{"intent": "return", "reverses_id": plain["id"], "items": []map[string]any{{"sku": "CF-01"}}}).wantFields(t, "items")
		r = post(map[string]any{"intent": "return", "reverses_id": plain["id"]}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, r, "points", -9.0, "amount", 9.0)
		post(map[string]any{"intent": "return", "reverses_id": plain["id"]}).wantFields(t, "reverses_id")
		gone := post(map[string]any{"intent": "reward", "amount": 5}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		a.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%v", gone["id"]), nil).want(t, http.StatusNoContent)
		post(map[string]any{"intent": "return", "reverses_id": gone["id"]}).wantFields(t, "reverses_id")
		post(map[string]any{"intent": "return", "reverses_id": gone["id"], "amount": 5}).wantFields(t, "amount")
		post(map[string]any{"intent": "reward", "amount": 5, "reverses_id": plain["id"]}).wantFields(t, "reverses_id")
		post(map[string]any{"intent": "return", "reverses_id": 99999999}).wantFields(t, "reverses_id")
		post(map[string]any{"intent": "return", "amount": 1, "items": []map[string]any{{"sku": "CF-01"}}}).wantFields(t, "items")

		// A cancellation after a return takes back only what the return did not.
		again := post(map[string]any{"intent": "reward", "items": []map[string]any{{"sku": "CF-01", "quantity": 3, "price": 4},
			{"sku": "MU-01", "quantity": 2, "price": 3}}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		post(map[string]any{"intent": "return", "reverses_id": again["id"], "items": []map[string]any{{"sku": "CF-01"}}}).want(t, http.StatusOK)
		balance := func() any {
			return at(a.get(t, "/customers/"+ann.ID+"?include=balance").want(t, http.StatusOK).obj(t)["data"].(map[string]any), "balance.points")
		}
		if b := balance(); b != 50.0 {
			t.Fatalf("after a sale of 62 and a return of 12 the balance is %v, want 50", b)
		}
		a.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%v", again["id"]), nil).want(t, http.StatusNoContent)
		if b := balance(); b != 0.0 {
			t.Errorf("after cancelling the sale the balance is %v, want 0 (62 given, 12 returned, 50 cancelled)", b)
		}
		post(map[string]any{"intent": "return", "reverses_id": again["id"]}).wantFields(t, "reverses_id")

		// The returns show with the sale's lines they returned.
		var list catPage
		a.get(t, "/customers/"+ann.ID+"/transactions?relationships=items&per_page=20").want(t, http.StatusOK).decode(t, &list)
		returns := 0
		for _, m := range list.Data {
			if m["intent"] == "return" && m["reverses_id"] == id {
				returns++
			}
		}
		if returns != 3 {
			t.Errorf("the history shows %d returns of the sale, want 3", returns)
		}
	})
}

// TestEvaluateEqualsReward: for random programs of earning rules and
// random baskets, the dry run and the reward that follows earn the same
// points, and the reward's lines' points add up to them.
func TestEvaluateEqualsReward(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		rng := rand.New(rand.NewPCG(29, uint64(len(engine))))
		var cats, prods []any
		for _, name := range []string{"Drinks", "Food"} {
			cats = append(cats, a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": name})["id"])
		}
		for i := range 4 {
			prods = append(prods, a.catData(t, http.MethodPost, "/products", map[string]any{"title": fmt.Sprint("P", i),
				"product_sku": fmt.Sprint("SKU-", i), "category_id": cats[i%2]})["id"])
		}
		ann := a.createCustomer(t, map[string]any{"email": "ann@property.example"})
		var rules []string
		for program := range 3 {
			for _, id := range rules {
				a.do(t, http.MethodDelete, "/earning-rules/"+id, nil).want(t, http.StatusNoContent)
			}
			rules = nil
			for i := range 2 + rng.IntN(8) {
				effect := []map[string]any{{"type": "points_per_amount", "points": 1 + rng.IntN(4), "per_amount": 1 + rng.IntN(5)},
					{"type": "multiplier", "factor": 1.5 + float64(rng.IntN(4))/2}, {"type": "bonus", "points": 1 + rng.IntN(30)},
					{"type": "points_per_item", "points": 1 + rng.IntN(5)}}[rng.IntN(4)]
				cond := []map[string]any{{}, {"categories": []any{cats[rng.IntN(2)]}}, {"products": []any{prods[rng.IntN(4)]}},
					{"min_amount": rng.IntN(40)}, {"min_quantity": 1 + rng.IntN(4)}}[rng.IntN(5)]
				rules = append(rules, fmt.Sprint(a.catData(t, http.MethodPost, "/earning-rules", map[string]any{
					"name": fmt.Sprintf("P%d R%d", program, i), "priority": rng.IntN(5) - 2, "exclusive": rng.IntN(8) == 0,
					"effect": effect, "conditions": cond})["id"]))
			}
			for n := range 8 {
				var items []map[string]any
				for range 1 + rng.IntN(5) {
					items = append(items, map[string]any{"sku": fmt.Sprint("SKU-", rng.IntN(5)), "quantity": 1 + rng.IntN(3),
						"price": float64(50+rng.IntN(1500)) / 100})
				}
				basket := map[string]any{"items": items}
				if n%4 == 3 {
					// A reward by amount alone (the everyday road).
					basket = map[string]any{"amount": float64(100+rng.IntN(5000)) / 100}
				}
				evaluate := map[string]any{"customer": map[string]any{"id": ann.ID}}
				reward := map[string]any{"intent": "reward", "customer": map[string]any{"id": ann.ID}}
				maps.Copy(evaluate, basket)
				maps.Copy(reward, basket)
				ev := a.do(t, http.MethodPost, "/baskets/evaluate", evaluate).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
				req := a.request(t, http.MethodPost, "/transactions", reward)
				key := fmt.Sprint("property-", program, "-", n)
				req.Header.Set("Idempotency-Key", key)
				first := e.send(t, req).want(t, http.StatusOK)
				got := first.obj(t)["data"].(map[string]any)
				sum := got["points"].(float64)
				if lines, ok := got["items"].([]any); ok {
					sum = 0
					for _, l := range lines {
						sum += l.(map[string]any)["points"].(float64)
					}
				}
				if ev["points"] != got["points"] || sum != got["points"] {
					t.Errorf("program %d, basket %v: evaluated %v points, the reward earned %v, its lines %v", program, basket,
						ev["points"], got["points"], sum)
				}
				if !reflect.DeepEqual(ev["applied"], got["applied"]) {
					t.Errorf("program %d, basket %v: evaluated as applied %v, the reward's reply says %v", program, basket,
						ev["applied"], got["applied"])
				}
				// A retry under the same key answers the same rules.
				req = a.request(t, http.MethodPost, "/transactions", reward)
				req.Header.Set("Idempotency-Key", key)
				again := e.send(t, req).want(t, http.StatusOK)
				if retried := again.obj(t)["data"].(map[string]any); !reflect.DeepEqual(retried["applied"], got["applied"]) {
					t.Errorf("the retry's applied %v, the first reply's %v", retried["applied"], got["applied"])
				}
			}
		}
	})
}

// TestEarningRulesOnCustomer: a first-purchase bonus is given once per
// customer (once of eight first rewards at once), a birthday bonus within
// its days of the birthday, a multiplier to the customers of a tier
// level; a dry run without a customer says why none applies.
func TestEarningRulesOnCustomer(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		tier := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Silver", 20, 0, 0), tierLvl("Gold", 100, 0, 0)}}).tierOf(t)
		gold := tier.TierLevels[1].ID
		rule := func(body map[string]any) string {
			t.Helper()
			return fmt.Sprint(a.catData(t, http.MethodPost, "/earning-rules", body)["id"])
		}
		welcome := rule(map[string]any{"name": "Welcome", "conditions": map[string]any{"first_purchase": true},
			"effect": map[string]any{"type": "bonus", "points": 50}})
		birthday := rule(map[string]any{"name": "Birthday week", "conditions": map[string]any{"birthday_within_days": 3},
			"effect": map[string]any{"type": "bonus", "points": 30}})
		golden := rule(map[string]any{"name": "Gold doubles", "conditions": map[string]any{"tier_levels": []int64{gold}},
			"effect": map[string]any{"type": "multiplier", "factor": 2}})
		got := a.get(t, "/earning-rules/"+birthday).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, got, "conditions.birthday_within_days", 3.0, "conditions.first_purchase", false)

		now := time.Now().UTC()
		ann := a.createCustomer(t, map[string]any{"email": "ann@facts.example", "birth_date": now.AddDate(-30, 0, -2).Format(time.DateOnly)})
		bob := a.createCustomer(t, map[string]any{"email": "bob@facts.example", "birth_date": now.AddDate(-30, 0, 10).Format(time.DateOnly)})
		reward := func(c customer, amount float64) float64 {
			t.Helper()
			d := a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": amount,
				"customer": map[string]any{"id": c.ID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			return d["points"].(float64)
		}
		// Ann: first purchase in her birthday week; then only the birthday.
		if p := reward(ann, 10); p != 90 {
			t.Errorf("Ann's first reward of 10.00 in her birthday week: %v points, want 90", p)
		}
		if p := reward(ann, 10); p != 40 {
			t.Errorf("Ann's second reward: %v points, want 40", p)
		}
		// Ann reaches Gold (120.00 spent): her points double.
		reward(ann, 100)
		if p := reward(ann, 10); p != 50 {
			t.Errorf("Ann at Gold: %v points for 10.00, want 50 (10 doubled and the birthday bonus)", p)
		}
		// Bob's eight first rewards at once: one welcome.
		var wg sync.WaitGroup
		points := make([]float64, 8)
		for i := range points {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := a.request(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 1,
					"customer": map[string]any{"id": bob.ID}})
				res, err := e.http.Do(req)
				if err != nil {
					t.Errorf("reward %d: %v", i, err)
					return
				}
				defer res.Body.Close()
				var body struct{ Data struct{ Points float64 } }
				if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&body) != nil {
					t.Errorf("reward %d: %s", i, res.Status)
				}
				points[i] = body.Data.Points
			}()
		}
		wg.Wait()
		var total float64
		for _, p := range points {
			total += p
		}
		if total != 8+50 {
			t.Errorf("Bob's eight first rewards at once earned %v in all (%v), want 58: one welcome", total, points)
		}

		d := a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"amount": 10}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		reasons := map[string]any{}
		for _, r := range d["not_applied"].([]any) {
			reasons[r.(map[string]any)["rule_id"].(string)] = r.(map[string]any)["reason"]
		}
		wantAt(t, reasons, "rule-"+welcome, "the sale names no customer", "rule-"+birthday, "the sale names no customer",
			"rule-"+golden, "the sale names no customer")
		d = a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"amount": 10, "customer": map[string]any{"id": bob.ID}}).
			want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		reasons = map[string]any{}
		for _, r := range d["not_applied"].([]any) {
			reasons[r.(map[string]any)["rule_id"].(string)] = r.(map[string]any)["reason"]
		}
		wantAt(t, reasons, "rule-"+welcome, "not the customer's first purchase", "rule-"+birthday, "not within 3 days of the customer's birthday",
			"rule-"+golden, "the customer holds none of its tier levels")
	})
}

// TestPunchCards: a coffee card of 5 stamps fills with qualifying units,
// issues its reward coupon once full and carries the stamps beyond; a
// visit card stamps every reward over its minimum; the dry run says what
// a basket would stamp and issue; the customer read shows the cards; bad
// cards are refused by field.
func TestPunchCards(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		drinks := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Drinks"})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Coffee", "product_sku": "CF-01", "category_id": drinks["id"]})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Muffin", "product_sku": "MU-01"})
		free := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free coffee"})
		points := a.catOffer(t, map[string]any{"type_id": 1, "title": "Double points", "multip_factor": 2})
		coffee := a.catData(t, http.MethodPost, "/punch-cards", map[string]any{"name": "Coffee card", "stamps_required": 5,
			"qualifies": map[string]any{"categories": []any{drinks["id"]}}, "reward_offer_id": catNum(free)})
		visits := a.catData(t, http.MethodPost, "/punch-cards", map[string]any{"name": "Visits", "stamps_required": 10,
			"qualifies": map[string]any{"min_amount": 5}, "reward_offer_id": catNum(free)})
		wantAt(t, coffee, "name", "Coffee card", "stamps_required", 5.0, "qualifies.categories.0", drinks["id"], "enabled", true)
		ann := a.createCustomer(t, map[string]any{"email": "ann@punch.example"})
		reward := func(items []map[string]any) any {
			t.Helper()
			return a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "items": items,
				"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)["id"]
		}
		cards := func() map[string]any {
			t.Helper()
			d := a.get(t, "/customers/"+ann.ID+"?include=punch_cards").want(t, http.StatusOK).obj(t)["included"].(map[string]any)
			out := map[string]any{}
			for _, c := range d["punch_cards"].([]any) {
				out[c.(map[string]any)["name"].(string)] = c
			}
			return out
		}
		coupons := func() int {
			t.Helper()
			return len(a.catList(t, "/customers/"+ann.ID+"/available-coupons").Data)
		}

		// The dry run: 3 coffees stamp 3, the 6.00 sale stamps the visit card; nothing full yet.
		three := []map[string]any{{"sku": "CF-01", "quantity": 3, "price": 2}}
		d := a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"items": three, "customer": map[string]any{"id": ann.ID}}).
			want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, d, "stamps.0.punch_card_id", coffee["id"], "stamps.0.stamps", 3.0, "stamps.1.punch_card_id", visits["id"],
			"stamps.1.stamps", 1.0)
		if len(d["coupons"].([]any)) != 0 {
			t.Errorf("3 of 5 stamps would issue %v", d["coupons"])
		}
		first := reward(three)
		wantAt(t, cards(), "Coffee card.stamps", 3.0, "Coffee card.stamps_required", 5.0, "Coffee card.completed", 0.0, "Visits.stamps", 1.0)

		// A member sees the cards on the user API.
		uma := e.register(t, e.biz.Key, map[string]any{"email": "uma@punch.example", "pin_code": 2468})
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "items": three,
			"customer": map[string]any{"id": uma.ID}}).want(t, http.StatusOK)
		me := e.asUser(t, e.userApp(t), e.biz.Key, "uma@punch.example", "2468")
		inc := me.get(t, "/users/me?include=punch_cards,products").want(t, http.StatusOK).obj(t)["included"].(map[string]any)
		wantAt(t, inc, "punch_cards.0.name", "Coffee card", "punch_cards.0.stamps", 3.0, "punch_cards.0.business_id", e.biz.ID,
			"punch_cards.1.name", "Visits", "punch_cards.1.stamps", 1.0)
		// And the business's products, each with its business.
		wantAt(t, inc, "products.0.title", "Coffee", "products.0.product_sku", "CF-01", "products.0.business_id", e.biz.ID,
			"products.0.category_id", drinks["id"], "products.1.title", "Muffin")

		// 4 more coffees (and a muffin, which stamps nothing): the card is
		// full once, 2 stamps carry over, one coupon of the reward offer.
		four := []map[string]any{{"sku": "CF-01", "quantity": 4, "price": 2}, {"sku": "MU-01", "price": 3}}
		d = a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"items": four, "customer": map[string]any{"id": ann.ID}}).
			want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, d, "coupons.0.punch_card_id", coffee["id"])
		if fmt.Sprint(at(d, "coupons.0.offer_id")) != free {
			t.Errorf("the full card would issue a coupon of offer %v, want %s", at(d, "coupons.0.offer_id"), free)
		}
		reward(four)
		wantAt(t, cards(), "Coffee card.stamps", 2.0, "Coffee card.completed", 1.0, "Visits.stamps", 2.0)
		if n := coupons(); n != 1 {
			t.Errorf("after the card was full Ann holds %d coupons, want 1", n)
		}
		// A sale under the visit card's minimum stamps nothing on it.
		reward([]map[string]any{{"sku": "MU-01", "price": 3}})
		wantAt(t, cards(), "Visits.stamps", 2.0)

		// Returns take the stamps back: a coffee of the first sale, one
		// stamp; the rest of it, the two others (the card holds one: it
		// stops at none, the coupon stays) and the visit's stamp.
		ret := func(items any) {
			t.Helper()
			body := map[string]any{"intent": "return", "reverses_id": first, "customer": map[string]any{"id": ann.ID}}
			if items != nil {
				body["items"] = items
			}
			a.do(t, http.MethodPost, "/transactions", body).want(t, http.StatusOK)
		}
		ret([]map[string]any{{"sku": "CF-01"}})
		wantAt(t, cards(), "Coffee card.stamps", 1.0, "Coffee card.completed", 1.0, "Visits.stamps", 2.0)
		ret(nil)
		wantAt(t, cards(), "Coffee card.stamps", 0.0, "Visits.stamps", 1.0)
		if n := coupons(); n != 1 {
			t.Errorf("after the returns Ann holds %d coupons, want the 1 the card issued", n)
		}

		// Bad cards are refused by field; a disabled card stamps nothing.
		bad := func(body map[string]any, field string) {
			t.Helper()
			a.do(t, http.MethodPost, "/punch-cards", body).wantFields(t, field)
		}
		bad(map[string]any{"stamps_required": 5, "reward_offer_id": catNum(free)}, "name")
		bad(map[string]any{"name": "x", "stamps_required": 0, "reward_offer_id": catNum(free)}, "stamps_required")
		bad(map[string]any{"name": "x", "stamps_required": 5}, "reward_offer_id")
		bad(map[string]any{"name": "x", "stamps_required": 5, "reward_offer_id": catNum(points)}, "reward_offer_id")
		bad(map[string]any{"name": "x", "stamps_required": 5, "reward_offer_id": catNum(free), "qualifies": map[string]any{"skus": []string{"CF-01"}}},
			"qualifies.skus")
		bad(map[string]any{"name": "x", "stamps_required": 5, "reward_offer_id": catNum(free), "qualifies": map[string]any{"products": []int{999999}}},
			"qualifies.products.0")
		a.do(t, http.MethodPut, fmt.Sprintf("/punch-cards/%v", coffee["id"]), map[string]any{"enabled": false}).want(t, http.StatusOK)
		reward(three)
		if _, ok := cards()["Coffee card"]; ok {
			t.Errorf("a disabled card is still shown on the customer")
		}
		var list catPage
		a.get(t, "/punch-cards").want(t, http.StatusOK).decode(t, &list)
		if list.Meta["total"] != 2.0 {
			t.Errorf("GET /punch-cards total %v, want 2", list.Meta["total"])
		}
		a.do(t, http.MethodDelete, fmt.Sprintf("/punch-cards/%v", visits["id"]), nil).want(t, http.StatusNoContent)
		a.get(t, fmt.Sprintf("/punch-cards/%v", visits["id"])).wantError(t, http.StatusNotFound)
	})
}
