package e2e

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The replay of the reference platform's v1 docs (kangaroorewards/api-docs,
// src/rest_tiers.apib, rest_referral_programs.apib, rest_branches.apib,
// rest_customers.apib, rest_account.apib): every request example of those
// pages, sent as the docs write it (method, target, headers, body), must
// answer as the docs document, with the documented fields. The bodies and
// the data the examples read are written here as test data.
//
// One thing differs from the docs on purpose: the examples of
// rest_tiers, rest_referral_programs' list and rest_account leave out
// X-Application-Key, which the spec (section 5) requires on every request
// (TestEveryRequest holds the 401 without it); docRequest adds the key when
// an example has none. The Host line is the base URL, which an integrator
// changes.

// docHeaders are the header lines the docs' examples send: the docs'
// token and key, which docRequest replaces by real ones.
const (
	docGetHeaders = `Authorization: Bearer eyJ0eXAiOiJKV1QiLC
X-Application-Key: eyXai0XD7SLLzaOeJW
Accept: application/vnd.kangaroorewards.api.v1+json;
Content-Type: application/json`
	// rest_tiers and rest_account: no Application Key.
	docGetHeadersNoKey = `Authorization: Bearer eyJ0eXAiOiJKV1QiLC
Accept: application/vnd.kangaroorewards.api.v1+json;
Content-Type: application/json`
	// rest_referral_programs' create: no trailing ';' in Accept.
	docReferralPostHeaders = `Authorization: Bearer eyJ0eXAiOiJKV1QiLC...
Accept: application/vnd.kangaroorewards.api.v1+json
X-Application-Key: eyXai0XD7SLLzaOeJW...
Content-Type: application/json`
)

// docRequest sends a request as a docs example writes it. headers holds
// the example's header lines; its Authorization and X-Application-Key
// values are replaced by the client's, and the key is added when the
// example has none (see above). It checks that the answer is JSON.
func (c *client) docRequest(t *testing.T, method, target, headers, body string) *result {
	t.Helper()
	var b any
	if body != "" {
		b = body
	}
	req := c.e.newRequest(t, method, target, b)
	for _, line := range strings.Split(headers, "\n") {
		name, value, _ := strings.Cut(line, ":")
		switch name = strings.TrimSpace(name); name {
		case "Authorization":
			value = "Bearer " + c.token
		case "X-Application-Key":
			value = c.key
		}
		req.Header.Set(name, strings.TrimSpace(value))
	}
	if req.Header.Get("X-Application-Key") == "" {
		req.Header.Set("X-Application-Key", c.key)
	}
	r := c.e.send(t, req)
	if ct := r.Header.Get("Content-Type"); r.Status != http.StatusNoContent && !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want application/json", r.what, ct)
	}
	return r
}

// wantKeys fails unless obj has every documented member of keys.
func wantKeys(t *testing.T, what string, obj map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s lacks the documented %q: %v", what, k, obj)
		}
	}
}

// docData decodes a 200 answer's data and included members.
func docData[T any](t *testing.T, r *result) (T, map[string]any) {
	t.Helper()
	var out struct {
		Data     T              `json:"data"`
		Included map[string]any `json:"included"`
	}
	r.want(t, http.StatusOK).decode(t, &out)
	return out.Data, out.Included
}

func TestReferenceListsReplay(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		t.Run("tiers", func(t *testing.T) { replayTiers(t, a) })
		t.Run("referral programs", func(t *testing.T) { replayReferralPrograms(t, a) })
		t.Run("branches", func(t *testing.T) { replayBranches(t, a) })
		t.Run("customers", func(t *testing.T) { replayCustomers(t, a) })
		t.Run("account", func(t *testing.T) { replayAccount(t, e, a) })
	})
}

// tierLevelKeys are the documented members of a tier level.
var tierLevelKeys = []string{"id", "name", "reach_spend", "reach_visits", "reach_points"}

// replayTiers: rest_tiers.apib, GET /tiers and GET
// /tiers?relationships=tier_levels, over the program its example shows.
func replayTiers(t *testing.T, a *client) {
	a.do(t, http.MethodPost, "/tiers", map[string]any{"tiers_sequence": []string{"1", "2", "3"}, "tiers_relation": 0,
		"reset_type": 1, "reset_period_month": 1, "base_previous_period": 0, "enabled": true,
		"tier_levels": []any{tierLvl("VIP", 1, 1, 1), tierLvl("Platinum", 2, 2, 2), tierLvl("Gold", 3, 3, 3)}}).tierOf(t)

	want := map[string]any{"tiers_sequence": []any{"1", "2", "3"}, "tiers_relation": 0.0, "reset_type": 1.0,
		"reset_period_month": 1.0, "base_previous_period": 0.0, "enabled": true}
	for _, target := range []string{"/tiers", "/tiers?relationships=tier_levels"} {
		list, _ := docData[[]map[string]any](t, a.docRequest(t, "GET", target, docGetHeadersNoKey, ""))
		if len(list) != 1 {
			t.Fatalf("GET %s: %v", target, list)
		}
		tr := list[0]
		wantKeys(t, "GET "+target, tr, "id", "tiers_sequence", "tiers_relation", "reset_type", "reset_period_month", "base_previous_period", "enabled")
		for k, v := range want {
			if !reflect.DeepEqual(tr[k], v) {
				t.Errorf("GET %s: %s = %v, want %v as the docs show", target, k, tr[k], v)
			}
		}
		if !strings.Contains(target, "tier_levels") {
			continue
		}
		levels, _ := tr["tier_levels"].([]any)
		var names []string
		for i, l := range levels {
			lv, _ := l.(map[string]any)
			wantKeys(t, "tier level", lv, tierLevelKeys...)
			names = append(names, str(lv["name"]))
			if n := float64(i + 1); lv["reach_spend"] != n || lv["reach_visits"] != n || lv["reach_points"] != n {
				t.Errorf("level %v, want %v in each threshold", lv, n)
			}
		}
		if !slices.Equal(names, []string{"VIP", "Platinum", "Gold"}) {
			t.Errorf("tier levels %v, want VIP, Platinum, Gold", names)
		}
	}
}

// referralProgramKeys are the documented members of a referral program.
var referralProgramKeys = []string{"id", "rule_name", "cond_min_amount", "referee_earns", "referer_earns", "expires_in",
	"enabled", "link_referral_enabled", "referral_link"}

// replayReferralPrograms: rest_referral_programs.apib, the create example,
// its documented 422, and the list.
func replayReferralPrograms(t *testing.T, a *client) {
	body := `{
  "cond_min_amount": 30.00,
  "referee_earns": 50,
  "referer_earns": 10,
  "expires_in": 35,
  "enabled": true,
  "link_referral_enabled": true
}`
	created, _ := docData[map[string]any](t, a.docRequest(t, "POST", "/referral-programs", docReferralPostHeaders, body))
	want := map[string]any{"rule_name": "REFERRAL_RULES_PURCHASE", "cond_min_amount": 30.0, "referee_earns": 50.0,
		"referer_earns": 10.0, "expires_in": 35.0, "enabled": true, "link_referral_enabled": true}
	wantKeys(t, "created program", created, referralProgramKeys...)
	for k, v := range want {
		if created[k] != v {
			t.Errorf("created %s = %v, want %v", k, created[k], v)
		}
	}
	// The docs' 422 names the four required fields.
	a.docRequest(t, "POST", "/referral-programs", docReferralPostHeaders, `{}`).
		wantFields(t, "cond_min_amount", "expires_in", "referee_earns", "referer_earns")

	list, _ := docData[[]map[string]any](t, a.docRequest(t, "GET", "/referral-programs", docGetHeadersNoKey, ""))
	if len(list) != 1 || list[0]["id"] != created["id"] {
		t.Fatalf("GET /referral-programs: %v", list)
	}
	wantKeys(t, "listed program", list[0], referralProgramKeys...)
	for k, v := range want {
		if list[0][k] != v {
			t.Errorf("listed %s = %v, want %v", k, list[0][k], v)
		}
	}
}

// replayBranches: rest_branches.apib, GET /branches and GET
// /branches?include=virtual_branch, over the branch its example shows.
func replayBranches(t *testing.T, a *client) {
	addr := map[string]any{"formatted": "1060 Boulevard Robert-Bourassa", "city": "Montreal", "region": "Quebec",
		"country": "Canada", "lat": 45.485169, "long": -73.580989}
	a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Retrorant", "address": addr})
	for _, target := range []string{"/branches", "/branches?include=virtual_branch"} {
		list, _ := docData[[]map[string]any](t, a.docRequest(t, "GET", target, docGetHeaders, ""))
		var found bool
		for _, br := range list {
			wantKeys(t, "GET "+target+" branch", br, "id", "name", "address")
			if br["name"] == "Retrorant" {
				found = true
				if !reflect.DeepEqual(br["address"], addr) {
					t.Errorf("GET %s: address %v, want %v", target, br["address"], addr)
				}
			}
		}
		if !found || len(list) != 2 {
			t.Errorf("GET %s: %v, want the main branch and Retrorant", target, list)
		}
	}
}

// customerKeys are the members the docs' customer examples show.
var customerKeys = []string{"id", "email", "phone", "first_name", "last_name"}

// replayCustomers: rest_customers.apib, every example: the list with and
// without include=balance and its three filter examples, the create, the
// reads with include and relationships, the updates, and the delete.
func replayCustomers(t *testing.T, a *client) {
	// The create example, and its documented 422.
	c, _ := docData[map[string]any](t, a.docRequest(t, "POST", "/customers", docGetHeaders,
		`{ "email" : "john2@example.com", "first_name": "John", "last_name": "Doe" }`))
	wantKeys(t, "created customer", c, customerKeys...)
	if c["email"] != "john2@example.com" || c["first_name"] != "John" || c["last_name"] != "Doe" {
		t.Errorf("created %v", c)
	}
	id := str(c["id"])
	a.docRequest(t, "POST", "/customers", docGetHeaders, `{ "first_name": "Nobody" }`).wantFields(t, "email", "phone")
	a.createCustomer(t, map[string]any{"email": "john@example.com", "first_name": "Adam", "last_name": "Pappas"})
	a.tierTransact(t, map[string]any{"intent": "reward", "points": 1000, "customer": map[string]any{"id": id}})

	// The list, with its cursor and meta, then with balances.
	var page struct {
		Data   []map[string]any `json:"data"`
		Cursor map[string]any   `json:"cursor"`
		Meta   map[string]any   `json:"meta"`
	}
	a.docRequest(t, "GET", "/customers", docGetHeaders, "").want(t, http.StatusOK).decode(t, &page)
	if len(page.Data) != 2 || page.Meta["total"] != 2.0 || page.Cursor["count"] != 2.0 {
		t.Errorf("GET /customers: %+v", page)
	}
	wantKeys(t, "cursor", page.Cursor, "count", "next", "next_uri")
	for _, cu := range page.Data {
		wantKeys(t, "listed customer", cu, customerKeys...)
	}
	page.Data = nil
	a.docRequest(t, "GET", "/customers?include=balance", docGetHeaders, "").want(t, http.StatusOK).decode(t, &page)
	for _, cu := range page.Data {
		bal, _ := cu["balance"].(map[string]any)
		wantKeys(t, "listed balance", bal, "points", "giftcard")
		if cu["id"] == id && bal["points"] != 1000.0 {
			t.Errorf("balance %v, want 1000 points", bal)
		}
	}
	// The filter examples, URL-encoded as the docs write them.
	for _, f := range []struct {
		target string
		emails []string
	}{
		{"/customers?created_at=gt%7C2017-01-27T14%3A37%3A16%2B0000", []string{"john2@example.com", "john@example.com"}},
		{"/customers?email=eq%7Cjohn%40example.com", []string{"john@example.com"}},
		// The docs' phone example is garbled ("email=eq|phone=eq|..."): it
		// is an e-mail filter on the address "phone=eq|5141234567", which
		// nobody has.
		{"/customers?email=eq%7Cphone=eq%7C5141234567", nil},
	} {
		page.Data = nil
		a.docRequest(t, "GET", f.target, docGetHeaders, "").want(t, http.StatusOK).decode(t, &page)
		var got []string
		for _, cu := range page.Data {
			got = append(got, str(cu["email"]))
		}
		slices.Sort(got)
		if !slices.Equal(got, f.emails) {
			t.Errorf("GET %s: %v, want %v", f.target, got, f.emails)
		}
	}

	// The single reads.
	path := "/customers/" + id
	data, inc := docData[map[string]any](t, a.docRequest(t, "GET", path+"?include=balance,tier_level", docGetHeaders, ""))
	wantKeys(t, "customer", data, customerKeys...)
	bal, _ := inc["balance"].(map[string]any)
	wantKeys(t, "included balance", bal, "points", "giftcard")
	level, _ := inc["tier_level"].(map[string]any)
	wantKeys(t, "included tier_level", level, tierLevelKeys...)
	if bal["points"] != 1000.0 || level["name"] != "Gold" {
		t.Errorf("included %v, want 1000 points and Gold (the tiers replay's program, reached on points)", inc)
	}
	data, _ = docData[map[string]any](t, a.docRequest(t, "GET", path+"?relationships=address", docGetHeaders, ""))
	addr, _ := data["address"].(map[string]any)
	wantKeys(t, "address", addr, "street", "city", "region", "country", "country_code", "zip_code", "lat", "long")

	// The tier example: a points-only program of two levels, and a
	// customer with 10 points earned.
	a.do(t, http.MethodPost, "/tiers", map[string]any{"tiers_sequence": []string{"2"}, "tiers_relation": 0, "reset_type": 2,
		"reset_period_month": 8, "base_previous_period": 0,
		"tier_levels": []any{tierLvl("VIP", 0, 0, 10), tierLvl("Platinum", 0, 0, 20)}}).tierOf(t)
	ten := a.createCustomer(t, map[string]any{"email": "johndoe@example.com", "first_name": "John", "last_name": "Doe"})
	a.tierTransact(t, map[string]any{"intent": "reward", "points": 10, "customer": map[string]any{"id": ten.ID}})
	_, inc = docData[map[string]any](t, a.docRequest(t, "GET",
		"/customers/"+ten.ID+"?include=tier_level,tier_progress,tiers&relationships=tier_levels", docGetHeaders, ""))
	level, _ = inc["tier_level"].(map[string]any)
	prog, _ := inc["tier_progress"].(map[string]any)
	tiers, _ := inc["tiers"].([]any)
	wantKeys(t, "tier_level", level, tierLevelKeys...)
	wantKeys(t, "tier_progress", prog, "total_amount", "total_points", "total_visits", "left_amount", "left_points", "left_visits",
		"tiers_relation", "start_date", "end_date", "tier_level", "next_tier_level", "tier_progress")
	if level["name"] != "VIP" || level["reach_points"] != 10.0 || prog["tier_level"] != "VIP" || prog["next_tier_level"] != "Platinum" ||
		prog["total_points"] != 10.0 || prog["left_points"] != 10.0 || prog["left_amount"] != nil || prog["left_visits"] != nil ||
		prog["tiers_relation"] != 0.0 {
		t.Errorf("tier standing: level %v, progress %v", level, prog)
	}
	var enabled map[string]any
	for _, x := range tiers {
		tr, _ := x.(map[string]any)
		wantKeys(t, "included tier", tr, "id", "tiers_sequence", "tiers_relation", "reset_type", "reset_period_month",
			"base_previous_period", "enabled", "tier_levels")
		if tr["enabled"] == true {
			enabled = tr
		}
	}
	if enabled == nil || !reflect.DeepEqual(enabled["tiers_sequence"], []any{"2"}) || enabled["reset_type"] != 2.0 ||
		enabled["reset_period_month"] != 8.0 || len(enabled["tier_levels"].([]any)) != 2 {
		t.Errorf("included tiers %v, want the enabled points-only program with its two levels", tiers)
	}

	// The update example sends a local phone without country_code, which
	// the same page says is required with a phone: 422 naming it. With a
	// country code, "5140000001" is no phone number (NANP exchanges do not
	// start with 0): 422 naming phone.
	update := `{ "email" : "johndoe@example.com", "phone": "5140000001", "first_name": "John", "last_name": "Doe" }`
	a.docRequest(t, "PUT", path, docGetHeaders, update).wantFields(t, "country_code")
	a.docRequest(t, "PUT", path, docGetHeaders,
		`{ "email" : "john.doe@example.com", "phone": "5140000001", "country_code": "CA", "first_name": "John", "last_name": "Doe" }`).
		wantFields(t, "phone")
	up, _ := docData[map[string]any](t, a.docRequest(t, "PUT", path, docGetHeaders,
		`{ "email" : "john.doe@example.com", "phone": "5142000001", "country_code": "CA", "first_name": "John", "last_name": "Doe" }`))
	wantKeys(t, "updated customer", up, customerKeys...)
	if up["email"] != "john.doe@example.com" || up["phone"] != "+15142000001" {
		t.Errorf("updated %v", up)
	}
	for _, enabledBody := range []string{"{\n  \"enabled\": false\n}", "{\n  \"enabled\": true\n}"} {
		got, _ := docData[map[string]any](t, a.docRequest(t, "PUT", path, docGetHeaders, enabledBody))
		if want := strings.Contains(enabledBody, "true"); got["enabled"] != want {
			t.Errorf("PUT %s: enabled %v", enabledBody, got["enabled"])
		}
	}
	// The delete: 204 with no body (the docs say "not implemented yet";
	// the spec implements it).
	if r := a.docRequest(t, "DELETE", path, docGetHeaders, ""); r.Status != http.StatusNoContent || len(r.Body) != 0 {
		t.Errorf("DELETE: %d %s", r.Status, r.Body)
	}
	a.docRequest(t, "GET", path, docGetHeaders, "").wantError(t, http.StatusNotFound)
}

// replayAccount: rest_account.apib, GET /me and its include example.
func replayAccount(t *testing.T, e *env, a *client) {
	data, _ := docData[map[string]any](t, a.docRequest(t, "GET", "/me", docGetHeadersNoKey, ""))
	wantKeys(t, "account", data, "id", "profile", "business")
	profile, _ := data["profile"].(map[string]any)
	business, _ := data["business"].(map[string]any)
	wantKeys(t, "profile", profile, "id", "username", "email", "first_name", "last_name")
	wantKeys(t, "business", business, "id", "name", "loyalty_type", "about", "logo", "cover")
	if data["id"] != e.biz.ID || profile["email"] != e.biz.Email || business["name"] != "Corner Cafe" || business["loyalty_type"] != "per_spend" {
		t.Errorf("GET /me: %v", data)
	}
	_, inc := docData[map[string]any](t, a.docRequest(t, "GET", "/me?include[]=branches&include[]=products&include[]=offers", docGetHeadersNoKey, ""))
	branches, _ := inc["branches"].([]any)
	if len(branches) != 2 || inc["products"] == nil || inc["offers"] == nil {
		t.Errorf("include[]=branches&include[]=products&include[]=offers: %v", inc)
	}
}
