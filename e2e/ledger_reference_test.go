package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// ledgerPage is a page of ledger entries.
type ledgerPage struct {
	Data []map[string]any `json:"data"`
}

// history reads a customer's ledger with query.
func (c *client) history(t *testing.T, id, query string) []map[string]any {
	t.Helper()
	var p ledgerPage
	c.get(t, "/customers/"+id+"/transactions?per_page=100&"+query).want(t, http.StatusOK).decode(t, &p)
	return p.Data
}

// post sends POST /transactions.
func (c *client) post(t *testing.T, body map[string]any) *result {
	t.Helper()
	return c.do(t, http.MethodPost, "/transactions", body)
}

// wantAccepted fails unless the response is the 202 of a condition not
// met, saying why with word.
func (r *result) wantAccepted(t *testing.T, word string) {
	t.Helper()
	r.want(t, http.StatusAccepted)
	m := r.obj(t)
	if m["status_code"] != 202.0 || !strings.Contains(str(m["message"]), word) || m["data"] != nil {
		t.Errorf("%s: 202 body %s, want status_code 202 and a message about %q, no data", r.what, r.Body, word)
	}
}

// TestReferralPayoutOnRequest (issue 11 item 1): reward_referral pays under
// the automatic payout's rules, answers 202 without writing when the
// amount, the time limit or the date fails them, 404 when there is no
// referral or the program is disabled, and records the amount.
func TestReferralPayoutOnRequest(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		prog := a.do(t, http.MethodPost, "/referral-programs", map[string]any{"cond_min_amount": 20, "referee_earns": 50,
			"referer_earns": 100, "expires_in": 30}).programOf(t)
		referrer := a.createCustomer(t, map[string]any{"email": "sponsor@ref.example"})
		refer := func(email string) customer {
			t.Helper()
			return a.createCustomer(t, map[string]any{"email": email,
				"referral": map[string]any{"referral_program_id": prog.ID, "referrer_id": referrer.ID}})
		}
		payout := func(id string, amount any) *result {
			t.Helper()
			body := map[string]any{"intent": "reward_referral", "customer": map[string]any{"id": id}}
			if amount != nil {
				body["amount"] = amount
			}
			return a.post(t, body)
		}

		friend := refer("friend@ref.example")
		payout(friend.ID, nil).wantFields(t, "amount")
		payout(friend.ID, 19.99).wantAccepted(t, "minimum")
		if h := a.history(t, friend.ID, ""); len(h) != 0 || a.refPointsOf(t, referrer.ID) != 0 {
			t.Fatalf("a payout under the minimum wrote %v", h)
		}
		d := payout(friend.ID, 40.99).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		if d["amount"] != 40.99 || d["points"] != 50.0 || d["intent"] != "reward_referral" ||
			d["customer"].(map[string]any)["balance"].(map[string]any)["points"] != 50.0 {
			t.Fatalf("payout = %v", d)
		}
		if got := a.refPointsOf(t, referrer.ID); got != 100 {
			t.Fatalf("referrer has %d points, want 100", got)
		}
		payout(friend.ID, 40.99).wantError(t, http.StatusNotFound, "Referral")
		// A later qualifying reward does not pay again.
		a.tierTransact(t, map[string]any{"intent": "reward", "amount": 25, "customer": map[string]any{"id": friend.ID}})
		if got := a.refPointsOf(t, referrer.ID); got != 100 {
			t.Fatalf("referrer paid again: %d", got)
		}
		payout(referrer.ID, 40).wantError(t, http.StatusNotFound, "Referral")

		t.Run("disabled program", func(t *testing.T) {
			late := refer("late@ref.example")
			a.do(t, http.MethodPut, programPath(prog.ID), map[string]any{"enabled": false}).programOf(t)
			payout(late.ID, 40).wantError(t, http.StatusNotFound, "not active")
			a.do(t, http.MethodPut, programPath(prog.ID), map[string]any{"enabled": true}).programOf(t)
			if p := a.refPointsOf(t, late.ID); p != 0 {
				t.Fatalf("paid from a disabled program: %d", p)
			}
			payout(late.ID, 40).want(t, http.StatusOK)
			if p := a.refPointsOf(t, late.ID); p != 50 {
				t.Fatalf("after re-enabling: %d points, want 50", p)
			}
		})

		t.Run("expired", func(t *testing.T) {
			slow := refer("slow@ref.example")
			e.db.Advance(30*24*time.Hour + time.Minute)
			payout(slow.ID, 40).wantAccepted(t, "expired")
			if h := a.history(t, slow.ID, ""); len(h) != 0 {
				t.Fatalf("an expired payout wrote %v", h)
			}
		})
	})
}

// TestGiftcardPurchaseByAmount (issue 11 item 4): the docs' body
// {customer, amount} buys that much gift-card credit; with a gift card,
// the amount must be its price.
func TestGiftcardPurchaseByAmount(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@gift.example"})
		ref := map[string]any{"id": ann.ID}
		buy := func(body map[string]any) *result {
			t.Helper()
			body["intent"] = "purchase_giftcard_prepaid"
			return a.post(t, body)
		}
		d := buy(map[string]any{"customer": ref, "amount": 10}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		if d["amount"] != 10.0 || d["giftcard"] != 10.0 || d["balance"].(map[string]any)["giftcard"] != 10.0 {
			t.Fatalf("buying 10.00 of credit = %v", d)
		}
		d = buy(map[string]any{"customer": map[string]any{"email": "john@gift.example"}, "amount": 10}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		if _, g := a.balanceOf(t, d["customer"].(map[string]any)["id"].(string)); g != 10 {
			t.Fatalf("a new customer's gift-card balance %v, want 10", g)
		}

		card := catID(a.catData(t, http.MethodPost, "/giftcards", map[string]any{"title": "$12 for $10", "discount_value": 12, "real_value": 10}))
		buy(map[string]any{"customer": ref, "amount": 25, "giftcard": map[string]any{"id": catNum(card)}}).wantFields(t, "amount")
		if _, g := a.balanceOf(t, ann.ID); g != 10 {
			t.Fatalf("a refused purchase moved the balance to %v", g)
		}
		d = buy(map[string]any{"customer": ref, "amount": 10, "giftcard": map[string]any{"id": catNum(card)}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		if d["amount"] != 10.0 || d["giftcard"] != 12.0 {
			t.Fatalf("buying the card at its price = %v", d)
		}
		buy(map[string]any{"customer": ref, "giftcard": map[string]any{"id": catNum(card)}}).want(t, http.StatusOK)
		if _, g := a.balanceOf(t, ann.ID); g != 34 {
			t.Fatalf("gift-card balance %v, want 34", g)
		}
		buy(map[string]any{"customer": ref}).wantFields(t, "amount")
		buy(map[string]any{"customer": ref, "amount": 5, "points": 5}).wantFields(t, "points")
		buy(map[string]any{"customer": ref, "amount": -5}).wantFields(t, "amount")
	})
}

// TestRulesReferenceBody (issue 11 item 5): PATCH /rules takes the
// reference's flat body and the engine earns by it; GET /rules shows the
// reference's fields; its tier-earning fields are refused (the
// redemption value and the currency: TestReferenceCurrency).
func TestRulesReferenceBody(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		rules := func(r *result) map[string]any {
			t.Helper()
			return r.want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		}
		r := rules(a.get(t, "/rules"))
		if r["redeeming"] != nil || at(r, "currency.iso_code") != "USD" {
			t.Fatalf("redeeming/currency = %v, %v; want null and USD", r["redeeming"], r["currency"])
		}
		r = rules(a.do(t, http.MethodPatch, "/rules", map[string]any{"reward_ratio": 3, "reward_milestone_amount": 2,
			"round_up_points": true, "welcome_points": 25}))
		earning := r["earning"].(map[string]any)
		if earning["reward_ratio"] != 3.0 || earning["reward_points"] != 3.0 || earning["reward_milestone_amount"] != 2.0 ||
			earning["reward_amount"] != 2.0 || earning["round_up_points"] != true || earning["welcome_points"] != 25.0 {
			t.Fatalf("earning after the flat PATCH = %v", earning)
		}
		if got := rules(a.get(t, "/rules"))["earning"]; got.(map[string]any)["reward_ratio"] != 3.0 {
			t.Fatalf("GET /rules after PATCH = %v", got)
		}
		// 3 points per 2.00, rounded up: 5.00 earns 7.5, so 8; a new customer gets 25.
		bob := a.createCustomer(t, map[string]any{"email": "bob@rules.example"})
		if p, _ := a.balanceOf(t, bob.ID); p != 25 {
			t.Fatalf("welcome points %v, want 25", p)
		}
		d := a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 5, "customer": map[string]any{"id": bob.ID}})
		if d["points"] != 8.0 {
			t.Fatalf("a reward of 5.00 earned %v, want 8", d["points"])
		}

		a.do(t, http.MethodPatch, "/rules", map[string]any{"reward_ratio": 9, "redemption_ratio": 20}).
			wantFields(t, "redemption_amount")
		a.do(t, http.MethodPatch, "/rules", map[string]any{"tiers_earning_override": true, "tiers_earning_rules": []map[string]any{{"id": 1, "amount": 1, "points": 2}}}).
			wantFields(t, "tiers_earning_override", "tiers_earning_rules")
		a.do(t, http.MethodPatch, "/rules", map[string]any{"reward_ratio": 9, "earning": map[string]any{"reward_ratio": 8}}).wantFields(t, "reward_ratio")
		a.do(t, http.MethodPatch, "/rules", map[string]any{"reward_milestone_amount": 0}).wantFields(t, "reward_milestone_amount")
		if got := rules(a.get(t, "/rules"))["earning"].(map[string]any)["reward_ratio"]; got != 3.0 {
			t.Fatalf("a refused PATCH changed reward_ratio to %v", got)
		}
		r = rules(a.do(t, http.MethodPatch, "/rules", map[string]any{"tiers_earning_override": false, "tiers_earning_rules": []any{}, "reward_ratio": 1}))
		if r["earning"].(map[string]any)["reward_ratio"] != 1.0 {
			t.Fatalf("PATCH with the tier fields off = %v", r)
		}
	})
}

// TestTransactionReferenceFields (issue 11 item 6): created_at, receipt,
// comments, the refused reference fields, the type codes, the main
// branch, the customer in the reply and in the list, null details and the
// refund of redeemed points, through HTTP.
func TestTransactionReferenceFields(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@fields.example", "first_name": "Ann"})
		ref := map[string]any{"id": ann.ID}
		data := func(body map[string]any) map[string]any {
			t.Helper()
			return a.post(t, body).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		}

		t.Run("created_at", func(t *testing.T) {
			then := time.Now().UTC().Add(-90 * 24 * time.Hour).Truncate(time.Second)
			d := data(map[string]any{"intent": "reward", "points": 10, "customer": ref, "created_at": then.Format("2006-01-02T15:04:05-0700")})
			if d["created_at"] != then.Format("2006-01-02T15:04:05+00:00") {
				t.Fatalf("back-dated reward created_at %v, want %v", d["created_at"], then)
			}
			d = data(map[string]any{"intent": "reward", "points": 1, "customer": map[string]any{"email": "ann@fields.example"},
				"created_at": then.Add(time.Hour).Format(time.RFC3339)})
			if d["created_at"] != then.Add(time.Hour).Format("2006-01-02T15:04:05+00:00") {
				t.Fatalf("back-dated reward by e-mail created_at %v", d["created_at"])
			}
			old := a.history(t, ann.ID, "created_at=lt|"+then.Add(2*time.Hour).Format(time.RFC3339))
			if len(old) != 2 {
				t.Fatalf("entries before %v: %v", then.Add(2*time.Hour), old)
			}
			a.post(t, map[string]any{"intent": "reward", "points": 1, "customer": ref, "created_at": time.Now().Add(time.Hour).Format(time.RFC3339)}).
				wantFields(t, "created_at")
			a.post(t, map[string]any{"intent": "reward", "points": 1, "customer": ref, "created_at": "yesterday"}).wantFields(t, "created_at")
			if p, _ := a.balanceOf(t, ann.ID); p != 11 {
				t.Fatalf("balance %v, want 11", p)
			}
		})

		t.Run("receipt and comments", func(t *testing.T) {
			d := data(map[string]any{"intent": "adjust_points_balance", "points": 4, "customer": ref,
				"receipt": map[string]any{"number": "12345678"}, "comments": "Add optional comments"})
			if d["receipt"].(map[string]any)["number"] != "12345678" || d["comments"] != "Add optional comments" {
				t.Fatalf("reply = %v", d)
			}
			h := a.history(t, ann.ID, "")
			if h[0]["receipt"].(map[string]any)["number"] != "12345678" || h[0]["comments"] != "Add optional comments" {
				t.Fatalf("history = %v", h[0])
			}
			if h[1]["receipt"] != nil || h[1]["comments"] != nil {
				t.Fatalf("an entry without them shows %v, %v", h[1]["receipt"], h[1]["comments"])
			}
		})

		t.Run("refused reference fields", func(t *testing.T) {
			before, _ := a.balanceOf(t, ann.ID)
			for field, extra := range map[string]map[string]any{
				"employee.id":       {"employee": map[string]any{"id": "21e3038a5e3780aca24e089e01cf84b2"}},
				"employee.pin_code": {"employee": map[string]any{"pin_code": "3333"}},
				"product_rewards":   {"product_rewards": []map[string]any{{"id": 123, "quantity": 3}}},
				"customer.pin_code": {"customer": map[string]any{"id": ann.ID, "pin_code": 1111}},
			} {
				body := map[string]any{"intent": "reward", "amount": 3, "customer": ref}
				for k, v := range extra {
					body[k] = v
				}
				a.post(t, body).wantFields(t, field)
			}
			a.post(t, map[string]any{"intent": "redeem", "amount": 5, "customer": ref}).wantFields(t, "amount")
			a.post(t, map[string]any{"intent": "return", "points": 5, "customer": ref}).wantFields(t, "points")
			a.post(t, map[string]any{"intent": "adjust_points_balance", "points": 5, "visits": 2, "customer": ref}).wantFields(t, "visits")
			if after, _ := a.balanceOf(t, ann.ID); after != before {
				t.Fatalf("refused requests moved the balance from %v to %v", before, after)
			}
			data(map[string]any{"intent": "reward", "amount": 3, "customer": ref, "employee": map[string]any{}, "product_rewards": []any{}})
		})

		t.Run("refund of redeemed points and type codes", func(t *testing.T) {
			data(map[string]any{"intent": "redeem", "points": 10, "customer": ref})
			d := data(map[string]any{"intent": "refund_redeemed_points", "points": 10, "customer": ref})
			if d["points"] != 10.0 || d["transaction_type"] != 107.0 || d["name"] != "Refund - Redeemed Points" {
				t.Fatalf("refund = %v", d)
			}
			for code, intent := range map[string]string{"4": "reward", "5": "redeem", "107": "refund_redeemed_points"} {
				h := a.history(t, ann.ID, "transaction_type=eq|"+code)
				if len(h) == 0 {
					t.Errorf("transaction_type=eq|%s lists nothing", code)
				}
				for _, x := range h {
					if x["intent"] != intent {
						t.Errorf("transaction_type=eq|%s lists %v", code, x)
					}
				}
			}
		})

		t.Run("main branch", func(t *testing.T) {
			var branches struct{ Data []map[string]any }
			a.get(t, "/branches").want(t, http.StatusOK).decode(t, &branches)
			main := str(branches.Data[0]["id"])
			// By id without a key (the lone append), by e-mail, and with a key.
			data(map[string]any{"intent": "reward", "points": 1, "customer": ref})
			data(map[string]any{"intent": "reward", "points": 1, "customer": map[string]any{"email": "ann@fields.example"}})
			req := a.request(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 1, "customer": ref})
			req.Header.Set("Idempotency-Key", "branch-"+engine)
			e.send(t, req).want(t, http.StatusOK)
			for _, x := range a.history(t, ann.ID, "relationships=branch") {
				if b, _ := x["branch"].(map[string]any); str(b["id"]) != main {
					t.Fatalf("entry %v is not on the main branch %s", x, main)
				}
			}
			if h := a.history(t, ann.ID, "branch.id=eq|"+main); len(h) != len(a.history(t, ann.ID, "")) {
				t.Fatalf("branch.id=eq|main lists %d entries", len(h))
			}
		})

		t.Run("customer and details", func(t *testing.T) {
			d := data(map[string]any{"intent": "reward", "points": 2, "customer": ref})
			c := d["customer"].(map[string]any)
			if c["id"] != ann.ID || c["balance"].(map[string]any)["points"] != d["balance"].(map[string]any)["points"] {
				t.Fatalf("reply customer %v, balance %v", c, d["balance"])
			}
			var list struct{ Data []map[string]any }
			a.get(t, "/transactions?relationships=customer,transaction_details").want(t, http.StatusOK).decode(t, &list)
			for _, x := range list.Data {
				c := x["customer"].(map[string]any)
				if c["id"] != ann.ID || c["email"] != "ann@fields.example" || c["first_name"] != "Ann" {
					t.Fatalf("relationships=customer shows %v", c)
				}
				if v, ok := x["transaction_details"]; !ok || v != nil {
					t.Fatalf("an entry without details shows transaction_details %v (present %v), want null", v, ok)
				}
			}
			h := a.history(t, ann.ID, "relationships=transaction_details")
			if v, ok := h[0]["transaction_details"]; !ok || v != nil {
				t.Fatalf("history transaction_details %v, want null", v)
			}
			if _, ok := a.history(t, ann.ID, "")[0]["transaction_details"]; ok {
				t.Fatalf("transaction_details shown without the relationship")
			}
		})
	})
}

// TestRefusedRequestIsKeptUnderItsKey (issue 11 item 13): reward 5;
// redeem 10 with key K is 422; reward 10; redeem 10 with key K is the same
// 422 again and writes nothing.
func TestRefusedRequestIsKeptUnderItsKey(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@keys.example"})
		ref := map[string]any{"id": ann.ID}
		keyed := func(key string, body map[string]any) *result {
			t.Helper()
			req := a.request(t, http.MethodPost, "/transactions", body)
			req.Header.Set("Idempotency-Key", key)
			return e.send(t, req)
		}
		redeem := map[string]any{"intent": "redeem", "points": 10, "customer": ref}
		a.post(t, map[string]any{"intent": "reward", "points": 5, "customer": ref}).want(t, http.StatusOK)
		first := keyed("K", redeem)
		first.wantFields(t, "points")
		a.post(t, map[string]any{"intent": "reward", "points": 10, "customer": ref}).want(t, http.StatusOK)
		again := keyed("K", redeem)
		again.wantFields(t, "points")
		if string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("the retry differs: %s (replayed %q), first %s", again.Body, again.Header.Get("Idempotent-Replayed"), first.Body)
		}
		if p, _ := a.balanceOf(t, ann.ID); p != 15 {
			t.Fatalf("balance %v, want 15", p)
		}
		if h := a.history(t, ann.ID, ""); len(h) != 2 {
			t.Fatalf("%d entries, want the 2 rewards", len(h))
		}
		// A 404 is kept too; a body refused before any lookup is not.
		ghost := map[string]any{"intent": "reward", "points": 1, "customer": map[string]any{"id": "0123456789abcdef0123456789abcdef"}}
		keyed("G", ghost).wantError(t, http.StatusNotFound, "Customer")
		if r := keyed("G", ghost); r.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("a 404 was not kept under its key: %d %s", r.Status, r.Body)
		}
		keyed("B", map[string]any{"intent": "reward", "points": -1, "customer": ref}).wantFields(t, "points")
		keyed("B", map[string]any{"intent": "reward", "points": 1, "customer": ref}).want(t, http.StatusOK)
	})
}
