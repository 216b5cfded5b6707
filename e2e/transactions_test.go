package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// balanceOf reads a customer's balance through the API.
func (c *client) balanceOf(t *testing.T, id string) (points float64, giftcard float64) {
	t.Helper()
	cu := c.get(t, "/customers/"+id+"?include=balance").want(t, http.StatusOK).customer(t)
	return cu.Balance["points"].(float64), cu.Balance["giftcard"].(float64)
}

// TestTransactions drives every plain intent of POST /transactions, the
// cancellation, the idempotency key and the ledger lists through HTTP.
func TestTransactions(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@tx.example"})
		ref := map[string]any{"id": ann.ID}

		t.Run("rules", func(t *testing.T) {
			var r struct {
				Data struct{ Earning, Visits map[string]any }
			}
			a.get(t, "/rules").want(t, http.StatusOK).decode(t, &r)
			if r.Data.Earning["reward_ratio"] != 1.0 || r.Data.Earning["reward_milestone_amount"] != 1.0 {
				t.Fatalf("default rules = %v", r.Data)
			}
			a.do(t, http.MethodPatch, "/rules", map[string]any{"earning": map[string]any{"reward_ratio": 2, "reward_milestone_amount": 10}}).
				want(t, http.StatusOK).decode(t, &r)
			if r.Data.Earning["reward_ratio"] != 2.0 || r.Data.Earning["reward_milestone_amount"] != 10.0 || r.Data.Visits["points_per_visit"] != 1.0 {
				t.Fatalf("patched rules = %v", r.Data)
			}
			a.do(t, http.MethodPatch, "/rules", map[string]any{"earning": map[string]any{"reward_milestone_amount": 0}}).
				wantFields(t, "earning.reward_milestone_amount")
			a.do(t, http.MethodPatch, "/rules", map[string]any{"earning": map[string]any{"reward_ratio": "two"}}).
				wantFields(t, "earning.reward_ratio")
		})

		t.Run("reward by amount, points and visits", func(t *testing.T) {
			// 2 points per 10.00: 25.50 earns 4.
			d := a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 25.50, "customer": ref})
			if d["points"] != 4.0 || d["amount"] != 25.5 || d["transaction_type"] != 4.0 || d["name"] != "Reward" {
				t.Fatalf("reward by amount = %v", d)
			}
			if b := d["balance"].(map[string]any); b["points"] != 4.0 {
				t.Fatalf("balance after reward = %v", b)
			}
			d = a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 100, "customer": ref})
			if d["points"] != 100.0 || d["balance"].(map[string]any)["points"] != 104.0 {
				t.Fatalf("reward by points = %v", d)
			}
			d = a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "visits": 2, "customer": ref})
			if d["points"] != 2.0 || d["visits"] != 2.0 {
				t.Fatalf("reward by visits (1 point per visit) = %v", d)
			}
			if p, _ := a.balanceOf(t, ann.ID); p != 106 {
				t.Fatalf("balance = %v, want 106", p)
			}
		})

		t.Run("bad input changes nothing", func(t *testing.T) {
			before, _ := a.balanceOf(t, ann.ID)
			post := func(body map[string]any) *result {
				return a.do(t, http.MethodPost, "/transactions", body)
			}
			post(map[string]any{"intent": "spin", "points": 1, "customer": ref}).wantFields(t, "intent")
			post(map[string]any{"points": 1, "customer": ref}).wantFields(t, "intent")
			post(map[string]any{"intent": "reward", "customer": ref}).wantFields(t, "amount")
			post(map[string]any{"intent": "reward", "amount": 1.005, "customer": ref}).wantFields(t, "amount")
			post(map[string]any{"intent": "reward", "amount": -5, "customer": ref}).wantFields(t, "amount")
			post(map[string]any{"intent": "reward", "points": "ten", "customer": ref}).wantFields(t, "points")
			post(map[string]any{"intent": "redeem", "points": 1}).wantFields(t, "customer")
			post(map[string]any{"intent": "redeem", "points": 100000, "customer": ref}).wantFields(t, "points")
			post(map[string]any{"intent": "redeem", "points": 1, "customer": map[string]any{"id": "0123456789abcdef0123456789abcdef"}}).
				wantError(t, http.StatusNotFound, "Customer")
			post(map[string]any{"intent": "redeem", "points": 1, "customer": map[string]any{"id": "nope"}}).want(t, http.StatusBadRequest)
			post(map[string]any{"intent": "reward", "points": 1, "customer": ref, "branch": map[string]any{"id": "0123456789abcdef0123456789abcdef"}}).
				want(t, http.StatusNotFound)
			a.do(t, http.MethodPost, "/transactions", "{not json").want(t, http.StatusBadRequest)
			if after, _ := a.balanceOf(t, ann.ID); after != before {
				t.Fatalf("balance moved from %v to %v on refused requests", before, after)
			}
		})

		t.Run("redeem, return, adjust", func(t *testing.T) {
			d := a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "redeem", "points": 6, "customer": ref})
			if d["points"] != -6.0 || d["transaction_type"] != 5.0 || d["balance"].(map[string]any)["points"] != 100.0 {
				t.Fatalf("redeem = %v", d)
			}
			// A return of 20.00 takes back the 4 points that spend earns.
			d = a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "return", "amount": 20, "customer": ref})
			if d["points"] != -4.0 {
				t.Fatalf("return = %v", d)
			}
			d = a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "adjust_points_balance", "points": -90, "customer": ref})
			if d["balance"].(map[string]any)["points"] != 6.0 {
				t.Fatalf("adjust = %v", d)
			}
			a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "adjust_points_balance", "points": -7, "customer": ref}).
				wantFields(t, "points")
		})

		t.Run("gift-card credit", func(t *testing.T) {
			d := a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward_store_credit", "amount": 15.25, "customer": ref})
			if d["giftcard"] != 15.25 || d["balance"].(map[string]any)["giftcard"] != 15.25 {
				t.Fatalf("store credit = %v", d)
			}
			a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "giftcard_payment", "amount": 15.26, "customer": ref}).
				wantFields(t, "amount")
			d = a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "giftcard_payment", "amount": 5.25, "customer": ref})
			if d["balance"].(map[string]any)["giftcard"] != 10.0 {
				t.Fatalf("gift-card payment = %v", d)
			}
		})

		t.Run("an unknown e-mail creates the customer", func(t *testing.T) {
			d := a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 3,
				"customer": map[string]any{"email": "new@tx.example"}})
			id := d["customer"].(map[string]any)["id"].(string)
			if p, _ := a.balanceOf(t, id); p != 3 {
				t.Fatalf("new customer balance = %v", p)
			}
			if welcome := e.waitMessage(t, "new@tx.example", 1); welcome.line(t, "Token") == "" {
				t.Fatalf("no verification token in the welcome:\n%s", welcome.Body)
			}
			a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 1,
				"customer": map[string]any{"email": "not-an-email"}}).wantFields(t, "customer.email")
		})

		t.Run("cancel", func(t *testing.T) {
			d := a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 50, "customer": ref})
			id := catID(d)
			a.do(t, http.MethodDelete, "/transactions/"+id, nil).want(t, http.StatusNoContent)
			// The reversing entry is the newest of the customer's ledger.
			var hist struct{ Data []map[string]any }
			a.get(t, "/customers/"+ann.ID+"/transactions?per_page=1").want(t, http.StatusOK).decode(t, &hist)
			c := hist.Data[0]
			if p, _ := a.balanceOf(t, ann.ID); c["points"] != -50.0 || catID(map[string]any{"id": c["reverses_id"]}) != id || p != 6.0 {
				t.Fatalf("cancellation = %v, balance %v", c, p)
			}
			a.do(t, http.MethodDelete, "/transactions/"+id, nil).wantFields(t, "id")
			a.do(t, http.MethodDelete, "/transactions/999999", nil).want(t, http.StatusNotFound)
			a.do(t, http.MethodDelete, "/transactions/x", nil).want(t, http.StatusBadRequest)
			// Cancelling a reward whose points were spent since is refused.
			r := a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 10, "customer": ref})
			a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "redeem", "points": 16, "customer": ref})
			a.do(t, http.MethodDelete, "/transactions/"+catID(r), nil).wantFields(t, "points")
		})

		t.Run("idempotency key", func(t *testing.T) {
			body := map[string]any{"intent": "reward", "points": 7, "customer": ref}
			send := func(key string, body map[string]any) *result {
				req := a.request(t, http.MethodPost, "/transactions", body)
				req.Header.Set("Idempotency-Key", key)
				return e.send(t, req)
			}
			before, _ := a.balanceOf(t, ann.ID)
			first := send("order-1", body).want(t, http.StatusOK)
			again := send("order-1", body).want(t, http.StatusOK)
			if string(first.Body) != string(again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay differs:\n%s\n%s", first.Body, again.Body)
			}
			if p, _ := a.balanceOf(t, ann.ID); p != before+7 {
				t.Fatalf("balance %v after a replayed reward of 7 on %v", p, before)
			}
			send("order-1", map[string]any{"intent": "reward", "points": 8, "customer": ref}).wantFields(t, "idempotency_key")
		})

		t.Run("ledger lists", func(t *testing.T) {
			var page struct {
				Data  []map[string]any
				Links map[string]*string
				Meta  map[string]any
			}
			a.get(t, "/customers/"+ann.ID+"/transactions?per_page=3").want(t, http.StatusOK).decode(t, &page)
			total := page.Meta["total"].(float64)
			if len(page.Data) != 3 || total != 13 || page.Meta["last_page"] != 5.0 || page.Meta["per_page"] != 3.0 || page.Links["next"] == nil || page.Links["prev"] != nil {
				t.Fatalf("page 1 = %d entries, meta %v, links %v", len(page.Data), page.Meta, page.Links)
			}
			if !strings.Contains(*page.Links["next"], "page=2") || !strings.Contains(*page.Links["next"], "per_page=3") {
				t.Fatalf("next link %s", *page.Links["next"])
			}
			if page.Data[0]["id"].(float64) <= page.Data[1]["id"].(float64) {
				t.Fatalf("not newest first: %v", page.Data)
			}
			a.get(t, "/customers/"+ann.ID+"/transactions?transaction_type=eq|5&per_page=100").want(t, http.StatusOK).decode(t, &page)
			for _, d := range page.Data {
				if d["transaction_type"] != 5.0 {
					t.Fatalf("transaction_type=eq|5 gave %v", d)
				}
			}
			if len(page.Data) != 2 {
				t.Fatalf("redemptions = %d, want 2", len(page.Data))
			}
			a.get(t, "/customers/"+ann.ID+"/transactions?relationships=transaction_details,branch").want(t, http.StatusOK)
			a.get(t, "/customers/"+ann.ID+"/transactions?per_page=101").wantFields(t, "per_page")
			a.get(t, "/customers/"+ann.ID+"/transactions?amount=gt|1").want(t, http.StatusBadRequest)
			a.get(t, "/customers/"+ann.ID+"/transactions?relationships=customer").want(t, http.StatusBadRequest)
			a.get(t, "/customers/0123456789abcdef0123456789abcdef/transactions").want(t, http.StatusNotFound)

			a.catData(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 1, "customer": ref,
				"transaction_details": map[string]any{"external_order_id": "PO-77", "custom_field_1": "till 3"}})
			var all struct {
				Data []map[string]any
				Meta map[string]any
			}
			a.get(t, "/transactions?transaction_details.external_order_id=eq|PO-77&relationships=transaction_details").
				want(t, http.StatusOK).decode(t, &all)
			if len(all.Data) != 1 || all.Data[0]["transaction_details"].(map[string]any)["custom_field_1"] != "till 3" {
				t.Fatalf("by order id = %v", all.Data)
			}
			a.get(t, "/transactions?customer.id=eq|"+ann.ID).want(t, http.StatusOK).decode(t, &all)
			if all.Meta["total"] != 14.0 {
				t.Fatalf("customer filter total %v", all.Meta)
			}
			a.get(t, "/transactions?transaction_type=eq|4").want(t, http.StatusBadRequest)
		})

		t.Run("another business sees none of it", func(t *testing.T) {
			b := e.owner(t, e.newBusiness(t, "Other"))
			b.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 1, "customer": ref}).want(t, http.StatusNotFound)
			b.get(t, "/customers/"+ann.ID+"/transactions").want(t, http.StatusNotFound)
			var all struct{ Data []map[string]any }
			b.get(t, "/transactions").want(t, http.StatusOK).decode(t, &all)
			if len(all.Data) != 0 {
				t.Fatalf("another business's ledger shows %d entries", len(all.Data))
			}
		})
	})
}
