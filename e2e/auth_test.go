package e2e

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/httpapi"
)

// TestEveryRequest covers what every business-API request goes through:
// the Application Key, the bearer token, its business and scope, its expiry,
// and the Accept header.
func TestEveryRequest(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		owner := e.owner(t, b)

		t.Run("application key", func(t *testing.T) {
			(&client{e: e, token: owner.token}).get(t, "/me").wantError(t, http.StatusUnauthorized, "X-Application-Key")
			(&client{e: e, key: "no-such-key", token: owner.token}).get(t, "/me").wantError(t, http.StatusUnauthorized)
			(&client{e: e, token: owner.token}).get(t, "/customers").wantError(t, http.StatusUnauthorized)
		})

		t.Run("bearer token", func(t *testing.T) {
			(&client{e: e, key: b.Key}).get(t, "/me").wantError(t, http.StatusUnauthorized, "Bearer")
			(&client{e: e, key: b.Key, token: "garbage"}).get(t, "/customers").wantError(t, http.StatusUnauthorized)
			// A refresh token is not an access token.
			tr := e.tokens(t, b)
			(&client{e: e, key: b.Key, token: tr.RefreshToken}).get(t, "/me").wantError(t, http.StatusUnauthorized)
			req := owner.request(t, http.MethodGet, "/me", nil)
			req.Header.Set("Authorization", "Basic "+owner.token)
			e.send(t, req).wantError(t, http.StatusUnauthorized)
			// The scheme name is case-insensitive (RFC 7235).
			req.Header.Set("Authorization", "bearer "+owner.token)
			e.send(t, req).want(t, http.StatusOK)
		})

		t.Run("token of another business", func(t *testing.T) {
			other := e.newBusiness(t, "Bakery")
			(&client{e: e, key: other.Key, token: owner.token}).get(t, "/me").wantError(t, http.StatusForbidden)
			(&client{e: e, key: other.Key, token: owner.token}).do(t, http.MethodPost, "/customers",
				map[string]any{"email": "sneaky@x.example"}).wantError(t, http.StatusForbidden)
			// Its own key works, and so does the first business's token with its own key.
			e.owner(t, other).get(t, "/me").want(t, http.StatusOK)
			owner.get(t, "/me").want(t, http.StatusOK)
		})

		t.Run("user token on the business API", func(t *testing.T) {
			// A user signs in with a PIN. PINs arrive with the user API (PIN
			// reset); until then the test sets one the way that flow will:
			// an argon2id hash in users.pin_hash.
			c := owner.createCustomer(t, map[string]any{"email": "pin.user@x.example", "phone": "514 555 0177", "country_code": "CA"})
			hash, err := e.app.Hasher.Password(context.Background(), "4821")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.app.DB.SQL().Exec(`UPDATE users SET pin_hash = $1 WHERE id = $2`, hash, c.ID); err != nil {
				t.Fatal(err)
			}
			wallet := e.admin(t, "admin", "app", "create", "--name", "Wallet", "--api", "user", "--grant", "password", "--approve")
			grant := func(username, pin string) *result {
				t.Helper()
				return e.postToken(t, b.Key, url.Values{"grant_type": {"password"}, "client_id": {str(wallet["client_id"])},
					"client_secret": {str(wallet["client_secret"])}, "username": {username}, "password": {pin},
					"scope": {"user"}, "application_key": {b.Key}})
			}
			grant("pin.user@x.example", "0000").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			// By phone, in a local format (read with the business's country).
			grant("(514) 555-0177", "4821").want(t, http.StatusOK)
			var tr tokenResponse
			grant("PIN.User@x.example", "4821").want(t, http.StatusOK).decode(t, &tr)
			if tr.ExpiresIn != 86400 {
				t.Errorf("user token expires_in = %d", tr.ExpiresIn)
			}
			user := &client{e: e, key: b.Key, token: tr.AccessToken}
			user.get(t, "/me").wantError(t, http.StatusForbidden, "scope")
			user.get(t, "/customers").wantError(t, http.StatusForbidden)
			user.get(t, "/customers/"+c.ID).wantError(t, http.StatusForbidden)
		})

		t.Run("accept header", func(t *testing.T) {
			for _, accept := range []string{
				"", "application/json", "*/*", "application/vnd.loyalty.api.v1+json",
				"application/vnd.service.api.v1+json;", "application/vnd.loyalty.api.v1+json; charset=utf-8",
				"text/html, application/json;q=0.9",
			} {
				req := owner.request(t, http.MethodGet, "/me", nil)
				req.Header.Del("Accept")
				if accept != "" {
					req.Header.Set("Accept", accept)
				}
				r := e.send(t, req)
				if r.Status != http.StatusOK {
					t.Errorf("Accept %q: status %d, want 200 (%s)", accept, r.Status, r.Body)
				}
				if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("Accept %q: Content-Type %q", accept, ct)
				}
			}
			for _, accept := range []string{"application/vnd.loyalty.api.v2+json", "application/vnd.service.api.v2+json;"} {
				c := *owner
				c.accept = accept
				c.get(t, "/customers").wantError(t, http.StatusNotAcceptable)
			}
		})

		// Last: it moves the clock a day forward.
		t.Run("expired access token", func(t *testing.T) {
			tr := e.tokens(t, b)
			e.oauth.Advance(23 * time.Hour)
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)
			e.oauth.Advance(2 * time.Hour)
			e.me(t, b.Key, tr.AccessToken).wantError(t, http.StatusUnauthorized)
			// Its refresh token still works (spec section 3).
			var next tokenResponse
			e.postToken(t, b.Key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken},
				"client_id": {e.client.ID}, "client_secret": {e.client.Secret}}).want(t, http.StatusOK).decode(t, &next)
			e.me(t, b.Key, next.AccessToken).want(t, http.StatusOK)
			// A refresh token unused for 30 days has expired.
			e.oauth.Advance(31 * 24 * time.Hour)
			e.postToken(t, b.Key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {next.RefreshToken},
				"client_id": {e.client.ID}, "client_secret": {e.client.Secret}}).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		})
	})
}

// TestRateLimit runs the service with small budgets and checks the headers
// of every response, the 429, and that budgets are per token (or per IP
// without one).
func TestRateLimit(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, httpapi.Limits{Business: 5, User: 5, Token: 3, Window: time.Minute})
		a := e.owner(t, e.biz) // token request 1 of 3

		headers := func(t *testing.T, r *result, remaining int) {
			t.Helper()
			if got := r.Header.Get("X-RateLimit-Limit"); got != "5" {
				t.Errorf("%s: X-RateLimit-Limit = %q, want 5", r.what, got)
			}
			if got := r.Header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
				t.Errorf("%s: X-RateLimit-Remaining = %q, want %d", r.what, got, remaining)
			}
		}
		t.Run("per token", func(t *testing.T) {
			paths := []string{"/me", "/customers", "/me?include=branches", "/customers?per_page=1", "/customers/0123456789abcdef0123456789abcdef"}
			for i, p := range paths {
				r := a.get(t, p)
				if r.Status != http.StatusOK && r.Status != http.StatusNotFound {
					t.Fatalf("%s: status %d", r.what, r.Status)
				}
				headers(t, r, 4-i)
				if r.Header.Get("X-RateLimit-Reset") != "" || r.Header.Get("Retry-After") != "" {
					t.Errorf("%s: X-RateLimit-Reset/Retry-After before the limit", r.what)
				}
			}
			before := time.Now().Unix()
			r := a.do(t, http.MethodPost, "/customers", map[string]any{"email": "late@x.example"})
			r.wantError(t, http.StatusTooManyRequests)
			headers(t, r, 0)
			reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
			if err != nil || reset < before || reset > before+61 {
				t.Errorf("X-RateLimit-Reset = %q, want Unix seconds within the next minute (now %d)", r.Header.Get("X-RateLimit-Reset"), before)
			}
			if secs, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || secs < 1 || secs > 60 {
				t.Errorf("Retry-After = %q, want 1..60", r.Header.Get("Retry-After"))
			}
			// The refused request did nothing.
			b := e.owner(t, e.biz) // token request 2 of 3
			if l := b.list(t, "email=eq|late@x.example"); len(l.Data) != 0 {
				t.Errorf("a refused create created %v", l.ids())
			}
			// Another token has its own budget (one request spent just above).
			headers(t, b.get(t, "/me").want(t, http.StatusOK), 3)
			a.get(t, "/me").wantError(t, http.StatusTooManyRequests)
		})

		t.Run("per IP without a token", func(t *testing.T) {
			anon := &client{e: e, key: e.biz.Key}
			for i := 0; i < 5; i++ {
				headers(t, anon.get(t, "/me").want(t, http.StatusUnauthorized), 4-i)
			}
			anon.get(t, "/me").wantError(t, http.StatusTooManyRequests)
		})

		t.Run("an invalid token does not escape the IP budget", func(t *testing.T) {
			// The IP's budget is spent (above): a made-up token is no token.
			for i := range 3 {
				(&client{e: e, key: e.biz.Key, token: "made-up-" + strconv.Itoa(i)}).get(t, "/me").
					wantError(t, http.StatusTooManyRequests)
			}
		})

		t.Run("token endpoint per IP", func(t *testing.T) {
			e.postToken(t, e.biz.Key, e.passwordForm(e.biz)).want(t, http.StatusOK) // 3 of 3
			r := e.postToken(t, e.biz.Key, e.passwordForm(e.biz))
			r.want(t, http.StatusTooManyRequests)
			if r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("token 429 without Retry-After and X-RateLimit-Reset: %v", r.Header)
			}
		})
	})
}
