package e2e

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

// TestGiftRules: earning rules whose effect is a coupon or stamps. A
// coupon rule issues its offer's coupon with the reward and a stamp rule
// adds stamps to a punch card, both listed in applied (0 points) and in
// the dry run's coupons and stamps; bad gifts are refused by field. When
// all of a reward is returned, or it is cancelled, the coupons it issued
// that are still unused are taken back (coupon.taken_back), a card it
// filled gets back the stamps that filled it, and a coupon already used
// stays.
func TestGiftRules(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		drinks := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Drinks"})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Coffee", "product_sku": "CF-01", "category_id": drinks["id"]})
		free := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free coffee"})
		gift := a.catOffer(t, map[string]any{"type_id": 8, "title": "Tote bag"})
		double := a.catOffer(t, map[string]any{"type_id": 1, "title": "Double points", "multip_factor": 2})
		card := a.catData(t, http.MethodPost, "/punch-cards", map[string]any{"name": "Coffee card", "stamps_required": 5,
			"qualifies": map[string]any{"categories": []any{drinks["id"]}}, "reward_offer_id": catNum(free)})
		num := func(id string) float64 { return float64(catNum(id).(int64)) }
		rule := func(body map[string]any) map[string]any {
			t.Helper()
			return a.catData(t, http.MethodPost, "/earning-rules", body)
		}
		bad := func(body map[string]any, field string) {
			t.Helper()
			body["name"] = "bad"
			a.do(t, http.MethodPost, "/earning-rules", body).wantFields(t, field)
		}
		bad(map[string]any{"effect": map[string]any{"type": "coupon"}}, "effect.offer_id")
		bad(map[string]any{"effect": map[string]any{"type": "coupon", "offer_id": catNum(double)}}, "effect.offer_id")
		bad(map[string]any{"effect": map[string]any{"type": "coupon", "offer_id": 999999}}, "effect.offer_id")
		bad(map[string]any{"effect": map[string]any{"type": "coupon", "offer_id": catNum(gift), "points": 5}}, "effect.points")
		bad(map[string]any{"effect": map[string]any{"type": "stamp", "punch_card_id": 999999}}, "effect.punch_card_id")
		bad(map[string]any{"effect": map[string]any{"type": "stamp", "punch_card_id": card["id"], "stamps": 0}}, "effect.stamps")
		bad(map[string]any{"effect": map[string]any{"type": "stamp", "punch_card_id": card["id"], "offer_id": catNum(gift)}}, "effect.offer_id")
		bad(map[string]any{"effect": map[string]any{"type": "coupon", "offer_id": catNum(gift)},
			"limits": map[string]any{"budget": map[string]any{"points": 100, "period": "day"}}}, "limits.budget")

		tote := rule(map[string]any{"name": "Tote for big orders", "conditions": map[string]any{"min_amount": 20},
			"effect": map[string]any{"type": "coupon", "offer_id": catNum(gift)}})
		stamps := rule(map[string]any{"name": "Coffee counts twice", "conditions": map[string]any{"categories": []any{drinks["id"]}},
			"effect": map[string]any{"type": "stamp", "punch_card_id": card["id"], "stamps": 2}})
		wantAt(t, tote, "effect.type", "coupon", "effect.offer_id", num(gift))
		wantAt(t, stamps, "effect.type", "stamp", "effect.punch_card_id", card["id"], "effect.stamps", 2.0)

		ann := a.createCustomer(t, map[string]any{"email": "ann@gifts.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@gifts.example"})
		cardOf := func(c customer) map[string]any {
			t.Helper()
			d := a.get(t, "/customers/"+c.ID+"?include=punch_cards").want(t, http.StatusOK).obj(t)["included"].(map[string]any)
			for _, pc := range d["punch_cards"].([]any) {
				return pc.(map[string]any)
			}
			return map[string]any{"stamps": 0.0, "completed": 0.0}
		}
		available := func(c customer) []map[string]any {
			t.Helper()
			return a.catList(t, "/customers/"+c.ID+"/available-coupons").Data
		}
		reward := func(c customer, items []map[string]any) map[string]any {
			t.Helper()
			return a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "items": items,
				"customer": map[string]any{"id": c.ID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		}

		// A coffee: 1 stamp for the coffee, 2 by the rule; no tote under 20.00.
		reward(ann, []map[string]any{{"sku": "CF-01", "quantity": 1, "price": 4}})
		wantAt(t, cardOf(ann), "stamps", 3.0, "completed", 0.0)

		// Three coffees at 8.00: the dry run says what the sale gives.
		three := []map[string]any{{"sku": "CF-01", "quantity": 3, "price": 8}}
		ev := a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"items": three, "customer": map[string]any{"id": ann.ID}}).
			want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		reasons := map[string]any{}
		for _, o := range ev["applied"].([]any) {
			reasons[fmt.Sprint(o.(map[string]any)["rule_id"])] = []any{o.(map[string]any)["points"], o.(map[string]any)["reason"]}
		}
		if want := []any{0.0, "issues a coupon of “Tote bag”"}; !reflect.DeepEqual(reasons[fmt.Sprint("rule-", tote["id"])], want) {
			t.Errorf("the coupon rule in applied: %v, want %v (all: %v)", reasons[fmt.Sprint("rule-", tote["id"])], want, ev["applied"])
		}
		if want := []any{0.0, "gives 2 stamps on “Coffee card”"}; !reflect.DeepEqual(reasons[fmt.Sprint("rule-", stamps["id"])], want) {
			t.Errorf("the stamp rule in applied: %v, want %v", reasons[fmt.Sprint("rule-", stamps["id"])], want)
		}
		wantAt(t, ev, "stamps.0.punch_card_id", card["id"], "stamps.0.stamps", 5.0,
			"coupons.0.offer_id", num(gift), "coupons.0.rule_id", tote["id"], "coupons.0.punch_card_id", nil,
			"coupons.1.offer_id", num(free), "coupons.1.punch_card_id", card["id"], "coupons.1.rule_id", nil)
		sale := reward(ann, three)
		if !reflect.DeepEqual(sale["applied"], ev["applied"]) {
			t.Errorf("the reward's applied %v, the dry run's %v", sale["applied"], ev["applied"])
		}
		wantAt(t, cardOf(ann), "stamps", 3.0, "completed", 1.0) // 3 + 5 = 8: full once, 3 carried over
		if got := available(ann); len(got) != 2 {
			t.Fatalf("after the sale Ann holds %d coupons, want the tote and the free coffee", len(got))
		}

		// Without a customer no coupon or stamp can be given.
		ev = a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"items": three}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		for _, o := range ev["not_applied"].([]any) {
			if o := o.(map[string]any); o["rule_id"] == fmt.Sprint("rule-", tote["id"]) && o["reason"] != "the sale names no customer" {
				t.Errorf("without a customer the coupon rule did not apply because %q", o["reason"])
			}
		}

		// All of the sale returned: both coupons taken back, the card as
		// it was before the sale (3 stamps, never full).
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "return", "reverses_id": sale["id"],
			"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK)
		if got := available(ann); len(got) != 0 {
			t.Errorf("after the return Ann holds %v, want no coupon", got)
		}
		wantAt(t, cardOf(ann), "stamps", 3.0, "completed", 0.0)
		var p eventPage
		a.get(t, "/events?type=eq|coupon.taken_back").want(t, http.StatusOK).decode(t, &p)
		if len(p.Data) != 2 {
			t.Errorf("%d coupon.taken_back events, want 2", len(p.Data))
		}

		// Cancellations: a coupon used before stays, an unused one is
		// taken back and can no longer be claimed.
		first, second := reward(bob, three), reward(bob, three)
		held := available(bob) // each sale: a tote, and 5 stamps fill the card once
		if len(held) != 4 {
			t.Fatalf("after two sales Bob holds %d coupons, want 2 totes and 2 free coffees", len(held))
		}
		var used, unused any
		for _, c := range held {
			if catID(c["offer"].(map[string]any)) == gift {
				if used == nil {
					used = c["id"]
				} else {
					unused = c["id"]
				}
			}
		}
		a.catTransact(t, bob.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": used}})
		a.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%v", first["id"]), nil).want(t, http.StatusNoContent)
		a.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%v", second["id"]), nil).want(t, http.StatusNoContent)
		for _, c := range available(bob) {
			t.Errorf("after both cancellations Bob still holds coupon %v of offer %v", c["id"], catID(c["offer"].(map[string]any)))
		}
		a.catTransactFails(t, bob.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": unused}}).wantFields(t, "coupon.id")
		wantAt(t, cardOf(bob), "stamps", 0.0, "completed", 0.0)
	})
}
