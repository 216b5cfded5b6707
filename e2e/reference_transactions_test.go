package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refExample is one request example of the reference platform's v1 docs
// (kangaroorewards/api-docs, src/rest_*.apib), written here as the docs
// write it: method, path and JSON body. The ids the docs made up are
// {placeholders} for this test's own objects.
type refExample struct {
	doc          string // which example of which file
	method, path string
	body         string
	status       int
	// refused are the documented fields this service cannot honour: the
	// example must be a 422 naming each, and the same body without them
	// must then answer 200.
	refused []string
	// amend are fields the docs' own table requires that the example
	// leaves out: the 422 names each, and the body is sent again with them.
	amend map[string]any
	check func(t *testing.T, d map[string]any) // the documented fields of the reply's data
	// kind is the type code of the entry the example writes, whose name
	// must be the reference table's (referenceTypes).
	kind float64
}

// refIDs are this test's objects, by the placeholder that names them.
type refIDs map[string]string

func (ids refIDs) fill(s string) string {
	for k, v := range ids {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// replay sends an example with the docs' headers: the bearer token, the
// Application Key, the reference's own vendor media type with its trailing
// ";", and a JSON content type, on every request.
func (c *client) replay(t *testing.T, method, path, body string) *result {
	t.Helper()
	var b any
	if body != "" {
		b = []byte(body)
	}
	req := c.e.newRequest(t, method, path, b)
	req.Host = "api.kangaroorewards.com"
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("X-Application-Key", c.key)
	req.Header.Set("Accept", "application/vnd.kangaroorewards.api.v1+json;")
	req.Header.Set("Content-Type", "application/json")
	return c.e.send(t, req)
}

// without returns the JSON body without the dotted fields and with the
// amended ones set.
func without(t *testing.T, body string, fields []string, amend map[string]any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("example body is not JSON: %v\n%s", err, body)
	}
	parent := func(path string) (map[string]any, string) {
		parts := strings.Split(path, ".")
		obj := m
		for _, p := range parts[:len(parts)-1] {
			obj, _ = obj[p].(map[string]any)
		}
		return obj, parts[len(parts)-1]
	}
	for _, f := range fields {
		if obj, last := parent(f); obj != nil {
			delete(obj, last)
		}
	}
	for f, v := range amend {
		if obj, last := parent(f); obj != nil {
			obj[last] = v
		}
	}
	return string(mustJSON(m))
}

// at returns the value at a dotted path of a JSON object (a number
// indexes an array).
func at(m map[string]any, path string) any {
	var v any = m
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any: // a number indexes an array: "data.0.id"
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// wantAt fails unless each dotted path of d holds its value (nil: present,
// any value).
func wantAt(t *testing.T, d map[string]any, pairs ...any) {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		path, want := pairs[i].(string), pairs[i+1]
		got := at(d, path)
		if want == nil {
			parent, last := d, path
			if j := strings.LastIndexByte(path, '.'); j >= 0 {
				parent, _ = at(d, path[:j]).(map[string]any)
				last = path[j+1:]
			}
			if _, ok := parent[last]; !ok {
				t.Errorf("%s is missing from %v", path, d)
			}
			continue
		}
		if got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
}

// TestReferenceTransactionExamples replays every request example of the
// reference's v1 docs for transactions (each intent, the list, the
// cancellation), customer transactions and business rules.
func TestReferenceTransactionExamples(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@replay.example", "first_name": "Ann"})
		var branches struct{ Data []map[string]any }
		a.get(t, "/branches").want(t, http.StatusOK).decode(t, &branches)
		second := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Uptown"})
		prog := a.do(t, http.MethodPost, "/referral-programs", map[string]any{"cond_min_amount": 20, "referee_earns": 50,
			"referer_earns": 10, "expires_in": 30}).programOf(t)
		referee := a.createCustomer(t, map[string]any{"email": "referee@replay.example",
			"referral": map[string]any{"referral_program_id": prog.ID, "referrer_id": ann.ID}})
		ids := refIDs{
			"customer": ann.ID, "referee": referee.ID, "main_branch": str(branches.Data[0]["id"]), "branch": str(second["id"]),
			"catalog_item": catID(a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 20})),
			"offer":        a.catOffer(t, map[string]any{"type_id": 9, "title": "10% off", "discount_value": 10}),
		}
		// The cancellation example cancels the reward of the receipt example.
		keep := func(name, path string) func(t *testing.T, d map[string]any) {
			return func(t *testing.T, d map[string]any) { ids[name] = catID(map[string]any{"id": at(d, path)}) }
		}

		examples := []refExample{
			// rest_transactions.apib: creating transactions.
			{doc: "reward amount and a customer with ID", kind: 4, method: "POST", path: "/transactions", status: 200,
				body: `{"intent": "reward", "amount": 5.25, "customer": {"id": "{customer}"}}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "id", nil, "created_at", nil, "amount", 5.25, "points", 5.0, "name", "Reward",
						"customer.id", ann.ID, "customer.balance.points", 5.0)
				}},
			{doc: "reward points and a customer with email address", kind: 4, method: "POST", path: "/transactions", status: 200,
				body: `{"intent": "reward", "points": 100, "customer": {"email": "john@example.com"}}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "points", 100.0, "name", "Reward", "customer.balance.points", 100.0)
				}},
			{doc: "Employee PIN Code required and Product Rewards", kind: 4, method: "POST", path: "/transactions", status: 200,
				body:    `{"intent": "reward", "amount": 3, "customer": {"phone": "6043345025"}, "employee": {"pin_code": "3333"}, "product_rewards": [{"id": 123, "quantity": 3}, {"id": 124, "quantity": 1}]}`,
				refused: []string{"employee.pin_code", "product_rewards"},
				// "customer.country_code: Required when customer.phone is present".
				amend: map[string]any{"customer.country_code": "CA"},
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "amount", 3.0, "points", 3.0, "name", "Reward", "customer.id", nil, "customer.balance.points", 3.0)
				}},
			{doc: "Branch ID", kind: 4, method: "POST", path: "/transactions", status: 200,
				body:  `{"intent": "reward", "amount": 3, "customer": {"id": "{customer}"}, "branch": {"id": "{branch}"}}`,
				check: func(t *testing.T, d map[string]any) { wantAt(t, d, "points", 3.0, "customer.balance.points", 8.0) }},
			{doc: "Employee ID", kind: 4, method: "POST", path: "/transactions", status: 200,
				body:    `{"intent": "reward", "amount": 3, "customer": {"id": "{customer}"}, "branch": {"id": "{branch}"}, "employee": {"id": "21e3038a5e3780aca24e089e01cf84b2"}}`,
				refused: []string{"employee.id"},
				check:   func(t *testing.T, d map[string]any) { wantAt(t, d, "customer.balance.points", 11.0) }},
			{doc: "Receipt Number", kind: 4, method: "POST", path: "/transactions", status: 200,
				body: `{"intent": "reward", "points": 100, "customer": {"id": "{customer}"}, "receipt": {"number": "12345678"}}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "receipt.number", "12345678", "customer.balance.points", 111.0)
					keep("receipt_reward", "id")(t, d)
				}},
			{doc: "Redeem a Catalog Item", kind: 43, method: "POST", path: "/transactions", status: 200,
				body:    `{"intent": "redeem", "customer": {"id": "{customer}", "pin_code": 1111}, "catalog_items": [{"id": {catalog_item}, "quantity": 1}]}`,
				refused: []string{"customer.pin_code"},
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "points", -20.0, "name", "Redemption - Catalog", "customer.balance.points", 91.0)
				}},
			{doc: "redeem with Employee's PIN Code", kind: 5, method: "POST", path: "/transactions", status: 200,
				body:    `{"intent": "redeem", "points": 10, "customer": {"id": "{customer}"}, "employee": {"pin_code": "1111"}}`,
				refused: []string{"employee.pin_code"},
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "points", -10.0, "name", "Redemption", "customer.balance.points", 81.0)
				}},
			{doc: "Return Amount", kind: 64, method: "POST", path: "/transactions", status: 200,
				body:    `{"intent": "return", "amount": 2.25, "customer": {"id": "{customer}", "pin_code": 1111}}`,
				refused: []string{"customer.pin_code"},
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "amount", 2.25, "points", -2.0, "customer.balance.points", 79.0)
				}},
			{doc: "assign a coupon to customer (Get coupon)", kind: 74, method: "POST", path: "/transactions", status: 200,
				body: `{"intent": "get_coupon", "customer": {"id": "{customer}"}, "offer": {"id": {offer}}}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "id", nil, "amount", 0.0, "points", 0.0, "created_at", nil, "updated_at", nil,
						"coupon.id", nil, "coupon.qrcode", nil, "coupon.coupon_locked", false, "coupon.coupon_type_id", 74.0,
						"coupon.expires_at", nil, "coupon.offer.id", nil)
					keep("coupon", "coupon.id")(t, d)
				}},
			{doc: "claim a coupon (redeem)", kind: 75, method: "POST", path: "/transactions", status: 200,
				body:  `{"intent": "claim_coupon", "customer": {"id": "{customer}"}, "offer": {"id": {offer}}, "coupon": {"id": {coupon}}}`,
				check: func(t *testing.T, d map[string]any) { wantAt(t, d, "coupon.coupon_type_id", 75.0) }},
			{doc: "purchase gift card prepaid (In store), by id", kind: 85, method: "POST", path: "/transactions", status: 200,
				body:  `{"intent": "purchase_giftcard_prepaid", "customer": {"id": "{customer}"}, "amount": 10}`,
				check: func(t *testing.T, d map[string]any) { wantAt(t, d, "amount", 10.0, "customer.balance.giftcard", 10.0) }},
			{doc: "purchase gift card prepaid (In store), by email", kind: 85, method: "POST", path: "/transactions", status: 200,
				body:  `{"intent": "purchase_giftcard_prepaid", "customer": {"email": "john@example.com"}, "amount": 10}`,
				check: func(t *testing.T, d map[string]any) { wantAt(t, d, "customer.balance.giftcard", 10.0) }},
			{doc: "Pay with gift card balance", kind: 88, method: "POST", path: "/transactions", status: 200,
				body:  `{"intent": "giftcard_payment", "customer": {"id": "{customer}"}, "amount": 10}`,
				check: func(t *testing.T, d map[string]any) { wantAt(t, d, "amount", 10.0, "customer.balance.giftcard", 0.0) }},
			{doc: "award Store Credit to customer", kind: 1012, method: "POST", path: "/transactions", status: 200,
				body: `{"intent": "reward_store_credit", "customer": {"id": "{customer}"}, "amount": 100}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "amount", 100.0, "customer.balance.giftcard", 100.0)
				}},
			{doc: "Adjust(increase) points balance", kind: 80, method: "POST", path: "/transactions", status: 200,
				body: `{"intent": "adjust_points_balance", "points": 100, "comments": "Add optional comments", "customer": {"id": "{customer}"}}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "points", 100.0, "comments", "Add optional comments", "customer.balance.points", 179.0)
				}},
			{doc: "Adjust(decrease) points balance", kind: 82, method: "POST", path: "/transactions", status: 200,
				body:  `{"intent": "adjust_points_balance", "points": -50, "customer": {"id": "{customer}"}}`,
				check: func(t *testing.T, d map[string]any) { wantAt(t, d, "points", -50.0, "customer.balance.points", 129.0) }},
			{doc: "Reward referral request", kind: 76, method: "POST", path: "/transactions", status: 200,
				body: `{"intent": "reward_referral", "amount": 40.99, "customer": {"id": "{referee}"}}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "amount", 40.99, "points", 50.0, "customer.balance.points", 50.0)
				}},
			{doc: "Refund redeemed points", kind: 107, method: "POST", path: "/transactions", status: 200,
				body:  `{"intent": "refund_redeemed_points", "points": 100, "customer": {"id": "{customer}"}}`,
				check: func(t *testing.T, d map[string]any) { wantAt(t, d, "points", 100.0, "customer.balance.points", 239.0) }},
			{doc: "Cancel a transaction", method: "DELETE", path: "/transactions/{receipt_reward}", status: 204},

			// rest_transaction_details.apib (the rest in TestReferenceTransactionDetails).
			{doc: "Update transaction details", method: "PATCH", path: "/transactions/{receipt_reward}/details", status: 200,
				body: `{"external_order_id": "ORD374938098", "custom_field_1": "83648-3836"}`,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "external_order_id", "ORD374938098", "custom_field_1", "83648-3836", "custom_field_2", nil,
						"custom_field_3", nil, "custom_field_4", nil, "custom_field_5", nil)
				}},

			// rest_transactions.apib: listing transactions.
			{doc: "List all transactions", method: "GET", path: "/transactions", status: 200},
			{doc: "List with relationships=customer", method: "GET", path: "/transactions?relationships=customer", status: 200},
			{doc: "List with relationships=transaction_sequences", method: "GET", path: "/transactions?relationships=transaction_sequences", status: 200},
			{doc: "List filtered by created date", method: "GET", path: "/transactions?created_at=gt%7C2017-01-27T14%3A37%3A16%2B0000", status: 200},

			// rest_customer_transactions.apib.
			{doc: "customer transactions", method: "GET", path: "/customers/{customer}/transactions", status: 200},
			{doc: "customer transactions with relationships", method: "GET", path: "/customers/{customer}/transactions?relationships=branch,transaction_details", status: 200},
			{doc: "filter by date (between)", method: "GET", path: "/customers/{customer}/transactions?created_at=between|2020-10-01T23:15:25+00:00,2020-10-31T23:15:25+00:00", status: 200},
			{doc: "filter by date (gte)", method: "GET", path: "/customers/{customer}/transactions?created_at=gte|2020-10-01T23:15:25+00:00", status: 200},
			{doc: "filter by type reward", method: "GET", path: "/customers/{customer}/transactions?transaction_type=eq|4", status: 200},
			{doc: "filter by type redeem", method: "GET", path: "/customers/{customer}/transactions?transaction_type=eq|5", status: 200},
			{doc: "filter by branch", method: "GET", path: "/customers/{customer}/transactions?branch.id=eq|{branch}", status: 200},

			// rest_business_rules.apib.
			{doc: "Retrieve Business Rules", method: "GET", path: "/rules", status: 200,
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "earning.reward_ratio", 1.0, "earning.reward_amount", 1.0, "earning.reward_points", 1.0,
						"earning.reward_milestone_amount", 1.0, "earning.welcome_points", 0.0, "redeeming", nil,
						"currency.iso_code", "USD", "currency.symbol", "$", "currency.denominator", 100.0)
				}},
			{doc: "Update Business Rules", method: "PATCH", path: "/rules", status: 200,
				body: `{"reward_ratio": 100, "reward_milestone_amount": 1, "redemption_ratio": 20, "redemption_amount": 1, "round_up_points": true, "welcome_points": 100,
					"tiers_earning_override": true, "tiers_earning_rules": [{"id": 78, "amount": 1, "points": 15}, {"id": 79, "amount": 1, "points": 20}, {"id": 475, "amount": 1, "points": 25}]}`,
				refused: []string{"tiers_earning_override", "tiers_earning_rules"},
				check: func(t *testing.T, d map[string]any) {
					wantAt(t, d, "earning.reward_ratio", 100.0, "earning.reward_points", 100.0, "earning.reward_milestone_amount", 1.0,
						"earning.round_up_points", true, "earning.welcome_points", 100.0,
						"redeeming.redemption_ratio", 20.0, "redeeming.redemption_amount", 1.0, "currency.iso_code", "USD")
				}},
		}
		lists := map[string]func(t *testing.T, body map[string]any){
			"List all transactions": func(t *testing.T, body map[string]any) {
				wantAt(t, body, "cursor.count", nil, "cursor.next", nil, "cursor.next_uri", nil, "meta.total", nil)
				for _, x := range body["data"].([]any) {
					wantAt(t, x.(map[string]any), "id", nil, "amount", nil, "points", nil, "name", nil, "created_at", nil, "updated_at", nil)
				}
			},
			"List with relationships=customer": func(t *testing.T, body map[string]any) {
				for _, x := range body["data"].([]any) {
					wantAt(t, x.(map[string]any), "customer.id", nil, "customer.email", nil, "customer.phone", nil, "customer.first_name", nil,
						"customer.last_name", nil, "customer.created_at", nil, "customer.updated_at", nil)
				}
			},
			"List with relationships=transaction_sequences": func(t *testing.T, body map[string]any) {
				// The cancelled receipt reward is followed by its cancellation.
				found := false
				for _, x := range body["data"].([]any) {
					m := x.(map[string]any)
					wantAt(t, m, "transaction_sequences", nil)
					if catID(m) == ids["receipt_reward"] {
						seq, _ := m["transaction_sequences"].([]any)
						found = len(seq) == 1
						if found {
							wantAt(t, seq[0].(map[string]any), "id", nil, "initial_transaction_id", m["id"], "next_transaction_id", nil,
								"next_transaction.id", nil, "next_transaction.name", "Transaction Canceled - Clerk")
						}
					}
				}
				if !found {
					t.Errorf("the cancelled reward shows no sequence: %v", body["data"])
				}
			},
			"customer transactions": func(t *testing.T, body map[string]any) {
				wantAt(t, body, "links.first", nil, "links.next", nil, "meta.total", nil, "meta.current_page", 1.0)
				for _, x := range body["data"].([]any) {
					wantAt(t, x.(map[string]any), "id", nil, "amount", nil, "points", nil, "name", nil, "created_at", nil, "updated_at", nil)
				}
			},
			"customer transactions with relationships": func(t *testing.T, body map[string]any) {
				wantAt(t, body, "links", nil, "meta", nil)
				for _, x := range body["data"].([]any) {
					wantAt(t, x.(map[string]any), "branch.id", nil, "branch.name", nil, "transaction_details", nil)
				}
			},
			"filter by date (between)": func(t *testing.T, body map[string]any) {
				if n := len(body["data"].([]any)); n != 0 {
					t.Errorf("%d entries of October 2020", n)
				}
			},
			"filter by date (gte)": func(t *testing.T, body map[string]any) {
				if n := len(body["data"].([]any)); n < 10 {
					t.Errorf("%d entries since October 2020, want all of them", n)
				}
			},
			"filter by type reward": wantTypes(4), "filter by type redeem": wantTypes(5),
			"filter by branch": func(t *testing.T, body map[string]any) {
				if n := len(body["data"].([]any)); n != 2 {
					t.Errorf("%d entries at the second branch, want 2", n)
				}
			},
		}

		for _, ex := range examples {
			path, body := ids.fill(ex.path), ids.fill(ex.body)
			if len(ex.refused) > 0 || len(ex.amend) > 0 {
				named := slices.Clone(ex.refused)
				for f := range ex.amend {
					named = append(named, f)
				}
				a.replay(t, ex.method, path, body).wantFields(t, named...)
				body = without(t, body, ex.refused, ex.amend)
			}
			r := a.replay(t, ex.method, path, body)
			if r.Status != ex.status {
				t.Fatalf("%s: %s %s -> %d, want %d: %s", ex.doc, ex.method, path, r.Status, ex.status, r.Body)
			}
			switch {
			case ex.status == http.StatusNoContent:
				if len(r.Body) != 0 {
					t.Errorf("%s: 204 with a body %s", ex.doc, r.Body)
				}
			case ex.status == http.StatusBadRequest:
				r.wantError(t, http.StatusBadRequest, "transaction_sequences")
			case ex.check != nil:
				t.Run(ex.doc, func(t *testing.T) {
					d := r.obj(t)["data"].(map[string]any)
					if ex.kind != 0 {
						wantType(t, d, ex.kind)
					}
					ex.check(t, d)
				})
			case lists[ex.doc] != nil:
				t.Run(ex.doc, func(t *testing.T) { lists[ex.doc](t, r.obj(t)) })
			}
		}
		t.Run("type codes", func(t *testing.T) { replayTypeCodes(t, a, ann.ID, referee.ID) })
	})
}

// wantTypes checks that every entry of a list has the type code.
func wantTypes(code float64) func(t *testing.T, body map[string]any) {
	return func(t *testing.T, body map[string]any) {
		data := body["data"].([]any)
		if len(data) == 0 {
			t.Errorf("no entries of type %v", code)
		}
		for _, x := range data {
			if got := x.(map[string]any)["transaction_type"]; got != code {
				t.Errorf("type %v listed under transaction_type=eq|%v", got, code)
			}
		}
	}
}
