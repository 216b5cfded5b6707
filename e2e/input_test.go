package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestInvalidUTF8 sends bodies, forms and filters that are not UTF-8
// (RFC 8259 section 8.1): each is refused with a 400 in the shape of its
// API, and nothing is stored with replacement characters in their place.
func TestInvalidUTF8(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		key := e.biz.Key
		app := e.userApp(t)
		e.register(t, key, map[string]any{"email": "utf8@example.com", "first_name": "Zoë", "pin_code": 2468})
		u := e.asUser(t, app, key, "utf8@example.com", "2468")
		ann := a.createCustomer(t, map[string]any{"email": "ann@x.example", "first_name": "Ann"})

		latin1 := []byte("{\"email\":\"andre@x.example\",\"first_name\":\"Andr\xe9 \xff\"}")
		t.Run("business API bodies", func(t *testing.T) {
			a.do(t, http.MethodPost, "/customers", latin1).wantError(t, http.StatusBadRequest, "UTF-8")
			a.do(t, http.MethodPut, "/customers/"+ann.ID, []byte("{\"first_name\":\"\xc3\"}")).wantError(t, http.StatusBadRequest, "UTF-8")
			a.do(t, http.MethodPost, "/transactions", []byte("{\"intent\":\"reward\",\"amount\":5,\"customer\":{\"email\":\"andre@x.example\"},"+
				"\"transaction_details\":{\"external_order_id\":\"\xed\xa0\x80\"}}")).wantError(t, http.StatusBadRequest, "UTF-8")
			// A \u escape of half a surrogate pair is not a character either.
			a.do(t, http.MethodPost, "/customers", `{"email":"andre@x.example","first_name":"Andr\ud800"}`).wantError(t, http.StatusBadRequest, "UTF-8")
			if l := a.list(t, "email=eq|andre@x.example"); l.Meta.Total != 0 {
				t.Errorf("a customer was stored from a body that is not UTF-8: %v", l.ids())
			}
			if got := a.get(t, "/customers/"+ann.ID).want(t, http.StatusOK).customer(t); deref(got.FirstName) != "Ann" {
				t.Errorf("first_name = %q after a refused update, want Ann", deref(got.FirstName))
			}
			// Escaped characters, surrogate pairs included, are text like any other.
			c := a.do(t, http.MethodPost, "/customers", `{"email":"andre2@x.example","first_name":"Andr\u00e9 \ud83d\ude00"}`).
				want(t, http.StatusOK).customer(t)
			if deref(c.FirstName) != "André 😀" {
				t.Errorf("first_name = %q, want %q", deref(c.FirstName), "André 😀")
			}
		})

		t.Run("user API bodies", func(t *testing.T) {
			e.keyOnly(key).do(t, http.MethodPost, "/users", []byte("{\"email\":\"andre.user@x.example\",\"first_name\":\"Andr\xe9\"}")).wantUserError(t)
			u.do(t, http.MethodPatch, "/users/me", []byte("{\"first_name\":\"Zo\xeb\"}")).wantUserError(t)
			if got := u.get(t, "/users/me").want(t, http.StatusOK).user(t); deref(got.FirstName) != "Zoë" {
				t.Errorf("first_name = %q after a refused update, want Zoë", deref(got.FirstName))
			}
		})

		t.Run("filters", func(t *testing.T) {
			a.get(t, "/customers?email=eq|andr%E9@x.example").wantError(t, http.StatusBadRequest, "UTF-8")
			a.get(t, "/transactions?customer.id=eq|%FF").wantError(t, http.StatusBadRequest, "UTF-8")
		})

		t.Run("token endpoint form", func(t *testing.T) {
			form := e.passwordForm(e.biz)
			form.Set("client_id", e.client.ID+"\xff")
			e.postToken(t, key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			form = e.passwordForm(e.biz)
			form.Set("password", e.biz.Password+"\xe9")
			e.postToken(t, key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			e.postToken(t, key, url.Values(e.passwordForm(e.biz))).want(t, http.StatusOK)
		})

		t.Run("Application Key header", func(t *testing.T) {
			bad := "\xff" + key
			(&client{e: e, key: bad, token: a.token}).get(t, "/customers").wantError(t, http.StatusBadRequest, "UTF-8")
			e.keyOnly(bad).do(t, http.MethodPost, "/users", map[string]any{"email": "header@x.example"}).wantUserError(t)
			e.postToken(t, bad, e.passwordForm(e.biz)).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
		})

		t.Run("portal forms and links", func(t *testing.T) {
			w := e.web(t)
			w.get(t, "/business").want(t, http.StatusOK)
			w.post(t, "/business/signin", url.Values{"email": {"owner\xe9@x.example"}, "password": {"x"}}).want(t, http.StatusBadRequest).has(t, "UTF-8")
			w.get(t, "/oauth/authorize?response_type=code&client_id=%FF").want(t, http.StatusBadRequest).has(t, "UTF-8")
		})
	})
}

// TestNULCharacters sends a NUL character (\u0000, legal in JSON) in every
// kind of client text: both engines answer the same, a 422 naming the
// field for a body member, a 400 for a filter or a path, invalid_request
// from the token endpoint, and nothing is stored.
func TestNULCharacters(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		key := e.biz.Key
		app := e.userApp(t)
		e.register(t, key, map[string]any{"email": "nul.user@example.com", "first_name": "Zoe", "pin_code": 2468})
		u := e.asUser(t, app, key, "nul.user@example.com", "2468")
		ann := a.createCustomer(t, map[string]any{"email": "ann@x.example", "first_name": "Ann"})
		branch := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)
		const nul = "a\x00b"
		reward := func(extra map[string]any) map[string]any {
			body := map[string]any{"intent": "reward", "amount": 5, "customer": map[string]any{"email": "ann@x.example"}}
			for k, v := range extra {
				body[k] = v
			}
			return body
		}

		t.Run("business API bodies", func(t *testing.T) {
			for _, c := range []struct {
				method, path string
				body         any
				field        string
			}{
				{http.MethodPost, "/customers", map[string]any{"email": "nul@x.example", "first_name": nul}, "first_name"},
				{http.MethodPost, "/customers", map[string]any{"email": "nul\x00@x.example"}, "email"},
				{http.MethodPost, "/customers", map[string]any{"email": "nul@x.example", "address": map[string]any{"city": nul}}, "address.city"},
				{http.MethodPut, "/customers/" + ann.ID, map[string]any{"last_name": nul}, "last_name"},
				{http.MethodPost, "/branches", map[string]any{"name": nul}, "name"},
				{http.MethodPost, "/transactions", reward(map[string]any{"transaction_details": map[string]any{"external_order_id": nul}}), "transaction_details.external_order_id"},
				{http.MethodPost, "/transactions", reward(map[string]any{"branch": map[string]any{"id": nul}}), "branch.id"},
				{http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 5, "customer": map[string]any{"email": "nul@x.example", "first_name": nul}}, "customer.first_name"},
				{http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": nul, "points": 5}, "title"},
				{http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "description": nul, "points": 90}, "description"},
				{http.MethodPost, "/giftcards", map[string]any{"title": nul, "discount_value": 25, "real_value": 20}, "title"},
				{http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Bronze", 10, 0, 0), tierLvl(nul, 20, 0, 0)}}, "tier_levels.1.name"},
			} {
				a.do(t, c.method, c.path, c.body).wantFields(t, c.field)
			}
			if l := a.list(t, "email=eq|nul@x.example"); l.Meta.Total != 0 {
				t.Errorf("a customer was stored from a refused body: %v", l.ids())
			}
			if got := a.get(t, "/customers/"+ann.ID).want(t, http.StatusOK).customer(t); deref(got.LastName) != "<nil>" {
				t.Errorf("last_name = %q after a refused update", deref(got.LastName))
			}
			var ledger struct{ Data []map[string]any }
			a.get(t, "/transactions?customer.id=eq|"+ann.ID).want(t, http.StatusOK).decode(t, &ledger)
			if len(ledger.Data) != 0 {
				t.Errorf("refused rewards wrote %d entries", len(ledger.Data))
			}
			if l := a.catList(t, "/branches"); len(l.Data) != 2 {
				t.Errorf("branches %v, want the main branch and %s", l.catIDs(), branch)
			}
			// An escaped backslash before u0000 is text, not a NUL.
			c := a.do(t, http.MethodPost, "/customers", `{"email":"path@x.example","first_name":"C:\\u0000"}`).want(t, http.StatusOK).customer(t)
			if deref(c.FirstName) != `C:\u0000` {
				t.Errorf("first_name = %q, want %q", deref(c.FirstName), `C:\u0000`)
			}
		})

		t.Run("user API bodies", func(t *testing.T) {
			e.keyOnly(key).do(t, http.MethodPost, "/users", map[string]any{"email": "nul2.user@example.com", "first_name": nul}).wantFields(t, "first_name")
			u.do(t, http.MethodPatch, "/users/me", map[string]any{"first_name": nul}).wantFields(t, "first_name")
			e.keyOnly(key).do(t, http.MethodPost, "/users/pincode/reset-request", map[string]any{"email": "nul.user@example.com" + "\x00"}).wantFields(t, "email")
			if got := u.get(t, "/users/me").want(t, http.StatusOK).user(t); deref(got.FirstName) != "Zoe" {
				t.Errorf("first_name = %q after a refused update, want Zoe", deref(got.FirstName))
			}
		})

		t.Run("filters and paths", func(t *testing.T) {
			a.get(t, "/customers?email=eq|a%00b@x.example").wantError(t, http.StatusBadRequest, "NUL")
			a.get(t, "/customers?email=in|ann@x.example,a%00b@x.example").wantError(t, http.StatusBadRequest, "NUL")
			a.get(t, "/transactions?customer.id=eq|"+ann.ID+"%00").wantError(t, http.StatusBadRequest, "NUL")
			a.get(t, "/customers/"+ann.ID+"%00").wantError(t, http.StatusBadRequest, "NUL")
			a.get(t, "/offers/1%00").wantError(t, http.StatusBadRequest, "NUL")
		})

		t.Run("token endpoint", func(t *testing.T) {
			for _, name := range []string{"client_id", "client_secret", "username", "password", "scope", "application_key"} {
				form := e.passwordForm(e.biz)
				form.Set(name, form.Get(name)+"\x00")
				e.postToken(t, key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			}
			form := e.passwordForm(e.biz)
			form.Set("grant_type", "refresh_token")
			form.Set("refresh_token", "x\x00")
			e.postToken(t, key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
		})
	})
}

// TestFilterListCap: an in or not_in list holds at most 100 values, and a
// request at most 20 conditions, on every filterable field: beyond, a 400
// that says the limit, before any SQL (SQLite allows 32,766 bound
// variables, PostgreSQL 65,535); at the limit, the list works.
func TestFilterListCap(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@x.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@x.example"})
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 5, "customer": map[string]any{"id": bob.ID}}).want(t, http.StatusOK)
		list := func(n int, last string) string {
			vs := make([]string, n-1, n)
			for i := range vs {
				vs[i] = "nobody" + strconv.Itoa(i) + "@x.example"
			}
			return strings.Join(append(vs, last), ",")
		}

		t.Run("100 values", func(t *testing.T) {
			if l := a.list(t, "email=in|"+list(100, "ann@x.example")); !slices.Equal(l.ids(), []string{ann.ID}) {
				t.Errorf("email=in|<100 values> = %v, want [%s]", l.ids(), ann.ID)
			}
			if l := a.list(t, "email=not_in|"+list(100, "ann@x.example")); !slices.Equal(l.ids(), []string{bob.ID}) {
				t.Errorf("email=not_in|<100 values> = %v, want [%s]", l.ids(), bob.ID)
			}
			ids := make([]string, 99)
			for i := range ids {
				ids[i] = fmt.Sprintf("%032x", i)
			}
			var ledger struct{ Data []map[string]any }
			a.get(t, "/transactions?customer.id=in|"+strings.Join(append(ids, bob.ID), ",")).want(t, http.StatusOK).decode(t, &ledger)
			if len(ledger.Data) != 1 {
				t.Errorf("customer.id=in|<100 values>: %d entries, want 1", len(ledger.Data))
			}
		})

		t.Run("101 values", func(t *testing.T) {
			for _, q := range []string{
				"/customers?email=in|" + list(101, "ann@x.example"),
				"/customers?email=not_in|" + list(101, "ann@x.example"),
				"/customers?phone=in|" + strings.Repeat("%2B15145550100,", 100) + "%2B15145550100",
				"/customers?created_at=in|" + strings.Repeat("2026-01-01,", 100) + "2026-01-01",
				"/transactions?customer.id=in|" + strings.Repeat(ann.ID+",", 100) + ann.ID,
				"/transactions?transaction_details.external_order_id=in|" + strings.Repeat("o,", 100) + "o",
				"/customers/" + bob.ID + "/transactions?transaction_type=not_in|" + strings.Repeat("1,", 100) + "1",
				"/customers/" + bob.ID + "/transactions?branch.id=in|" + strings.Repeat(ann.ID+",", 100) + ann.ID,
				// The case: tens of thousands of values.
				"/customers?email=in|" + strings.Repeat("a@x.io,", 50000) + "a@x.io",
			} {
				a.get(t, q).wantError(t, http.StatusBadRequest, "100")
			}
		})

		t.Run("21 conditions", func(t *testing.T) {
			q := strings.Repeat("email=in|"+list(100, "ann@x.example")+"&", 20)
			if l := a.list(t, strings.TrimSuffix(q, "&")); !slices.Equal(l.ids(), []string{ann.ID}) {
				t.Errorf("20 lists of 100 values = %v, want [%s]", l.ids(), ann.ID)
			}
			a.get(t, "/customers?"+q+"created_at=gte|2026-01-01").wantError(t, http.StatusBadRequest, "20")
		})
	})
}
