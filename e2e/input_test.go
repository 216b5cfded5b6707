package e2e

import (
	"net/http"
	"net/url"
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
