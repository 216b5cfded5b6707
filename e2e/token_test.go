package e2e

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestToken covers POST /oauth/token: the password and refresh grants of the
// business API, client authentication, approval, scope, the Application Key
// checks, the sign-in lock and refresh-token rotation.
func TestToken(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz

		t.Run("password grant", func(t *testing.T) {
			r := e.postToken(t, b.Key, e.passwordForm(b)).want(t, http.StatusOK)
			if got := r.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			var tr tokenResponse
			r.decode(t, &tr)
			if tr.ExpiresIn != 86400 || tr.TokenType != "Bearer" {
				t.Errorf("expires_in %d, token_type %q; want 86400, Bearer", tr.ExpiresIn, tr.TokenType)
			}
			if len(tr.AccessToken) < 32 || len(tr.RefreshToken) < 32 || tr.AccessToken == tr.RefreshToken {
				t.Errorf("access %q and refresh %q must be distinct long random strings", tr.AccessToken, tr.RefreshToken)
			}
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)

			// The e-mail is case-insensitive.
			form := e.passwordForm(b)
			form.Set("username", strings.ToUpper(b.Email))
			e.postToken(t, b.Key, form).want(t, http.StatusOK)
		})

		t.Run("client credentials in HTTP Basic", func(t *testing.T) {
			form := e.passwordForm(b)
			form.Del("client_id")
			form.Del("client_secret")
			req := e.tokenRequest(t, b.Key, form)
			req.SetBasicAuth(e.client.ID, e.client.Secret)
			var tr tokenResponse
			e.send(t, req).want(t, http.StatusOK).decode(t, &tr)
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)
		})

		t.Run("wrong password or unknown owner", func(t *testing.T) {
			form := e.passwordForm(b)
			form.Set("password", "not-the-password")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			form = e.passwordForm(b)
			form.Set("username", "nobody@shop.example")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		})

		t.Run("unknown client or wrong secret", func(t *testing.T) {
			form := e.passwordForm(b)
			form.Set("client_id", "0123456789abcdef0123456789abcdef")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			form = e.passwordForm(b)
			form.Set("client_secret", "wrong")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			form.Del("client_secret")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")

			form = e.passwordForm(b)
			form.Del("client_id")
			form.Del("client_secret")
			req := e.tokenRequest(t, b.Key, form)
			req.SetBasicAuth(e.client.ID, "wrong")
			r := e.send(t, req)
			r.wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
			if r.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
		})

		t.Run("unapproved app until support approves it", func(t *testing.T) {
			out := e.admin(t, "admin", "app", "create", "--name", "New POS", "--api", "business", "--grant", "password")
			if out["approved"] != false {
				t.Errorf("new app: approved = %v, want false", out["approved"])
			}
			form := e.passwordForm(b)
			form.Set("client_id", str(out["client_id"]))
			form.Set("client_secret", str(out["client_secret"]))
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "unauthorized_client")

			e.admin(t, "admin", "app", "approve", str(out["client_id"]))
			var tr tokenResponse
			e.postToken(t, b.Key, form).want(t, http.StatusOK).decode(t, &tr)
			e.me(t, b.Key, tr.AccessToken).want(t, http.StatusOK)
		})

		t.Run("app of another API or grant", func(t *testing.T) {
			user := e.admin(t, "admin", "app", "create", "--name", "Wallet", "--api", "user", "--grant", "password", "--approve")
			form := e.passwordForm(b)
			form.Set("client_id", str(user["client_id"]))
			form.Set("client_secret", str(user["client_secret"]))
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_scope")

			web := e.admin(t, "admin", "app", "create", "--name", "Web", "--api", "business", "--grant", "authorization_code",
				"--redirect-uri", "https://app.example/callback", "--approve")
			form.Set("client_id", str(web["client_id"]))
			form.Set("client_secret", str(web["client_secret"]))
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "unauthorized_client")

			form = e.passwordForm(b)
			form.Set("scope", "user")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_scope")
			form.Del("scope")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_scope")
		})

		t.Run("application key", func(t *testing.T) {
			other := e.newBusiness(t, "Bakery")
			form := e.passwordForm(b)
			form.Del("application_key")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			form.Set("application_key", other.Key)
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_request")

			// The owner of one business cannot sign in under another's key.
			form = e.passwordForm(b)
			form.Set("application_key", other.Key)
			e.postToken(t, other.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")

			// Without the header the form field names the key, as in the
			// reference docs' examples (TestTokenApplicationKey); either
			// way it must be a known key.
			e.postToken(t, "", e.passwordForm(b)).want(t, http.StatusOK)
			form = e.passwordForm(b)
			form.Set("application_key", "no-such-key")
			e.postToken(t, "no-such-key", form).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
		})

		t.Run("password grant with the header only", func(t *testing.T) {
			// The spec's password flow requires the application_key
			// parameter, and api/openapi.yaml says the header does not
			// replace it: the refusal names the parameter.
			form := e.passwordForm(b)
			form.Del("application_key")
			r := e.postToken(t, b.Key, form)
			r.wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			var oe oauthError
			r.decode(t, &oe)
			if !strings.Contains(oe.Description, "application_key parameter is required") {
				t.Errorf("error_description = %q, want it to name the application_key parameter", oe.Description)
			}
			// Sent in both places with the same key, it is accepted.
			e.postToken(t, b.Key, e.passwordForm(b)).want(t, http.StatusOK)
			// Neither: the same refusal.
			r = e.postToken(t, "", form)
			r.wantOAuthError(t, http.StatusBadRequest, "invalid_request")
			r.decode(t, &oe)
			if !strings.Contains(oe.Description, "application_key parameter is required") {
				t.Errorf("without any key: error_description = %q, want it to name the application_key parameter", oe.Description)
			}
		})

		t.Run("grant type", func(t *testing.T) {
			form := e.passwordForm(b)
			form.Set("grant_type", "client_credentials")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "unsupported_grant_type")
			form.Del("grant_type")
			e.postToken(t, b.Key, form).wantOAuthError(t, http.StatusBadRequest, "invalid_request")
		})

		t.Run("another API version", func(t *testing.T) {
			// The API's version negotiation is not OAuth's: the token
			// endpoint answers JSON whatever Accept says
			// (TestTokenIgnoresAccept).
			req := e.tokenRequest(t, b.Key, e.passwordForm(b))
			req.Header.Set("Accept", "application/vnd.loyalty.api.v2+json")
			e.send(t, req).want(t, http.StatusOK)
		})

		t.Run("refresh rotates and reuse revokes the chain", func(t *testing.T) {
			first := e.tokens(t, b)
			refresh := func(rt string) *result {
				t.Helper()
				return e.postToken(t, b.Key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt},
					"client_id": {e.client.ID}, "client_secret": {e.client.Secret}, "scope": {"admin"}})
			}
			r := refresh(first.RefreshToken).want(t, http.StatusOK)
			if got := r.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
			var second tokenResponse
			r.decode(t, &second)
			if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken || second.ExpiresIn != 86400 {
				t.Fatalf("refresh did not issue a new pair: %+v after %+v", second, first)
			}
			e.me(t, b.Key, second.AccessToken).want(t, http.StatusOK)
			e.me(t, b.Key, first.AccessToken).wantError(t, http.StatusUnauthorized)

			// A spent refresh token is a stolen one: the whole chain dies.
			refresh(first.RefreshToken).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			e.me(t, b.Key, second.AccessToken).wantError(t, http.StatusUnauthorized)
			refresh(second.RefreshToken).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")

			refresh("not-a-refresh-token").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			refresh("").wantOAuthError(t, http.StatusBadRequest, "invalid_request")

			// A refresh token is bound to the client it was issued to.
			third := e.tokens(t, b)
			other := e.admin(t, "admin", "app", "create", "--name", "Other POS", "--api", "business", "--grant", "password", "--approve")
			e.postToken(t, b.Key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {third.RefreshToken},
				"client_id": {str(other["client_id"])}, "client_secret": {str(other["client_secret"])}}).
				wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		})

		// Last: it moves the clock.
		t.Run("five wrong passwords lock the owner for 15 minutes", func(t *testing.T) {
			o := e.newBusiness(t, "Locked Shop")
			wrong := e.passwordForm(o)
			wrong.Set("password", "guess-guess")
			for i := 0; i < 5; i++ {
				e.postToken(t, o.Key, wrong).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			}
			r := e.postToken(t, o.Key, e.passwordForm(o))
			r.wantOAuthError(t, http.StatusTooManyRequests, "invalid_grant")
			secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || secs < 1 || secs > 15*60+1 {
				t.Fatalf("Retry-After = %q, want 1..901 seconds", r.Header.Get("Retry-After"))
			}
			// Still locked a minute before the end.
			e.oauth.Advance(time.Duration(secs)*time.Second - time.Minute)
			e.postToken(t, o.Key, e.passwordForm(o)).wantOAuthError(t, http.StatusTooManyRequests, "invalid_grant")
			e.oauth.Advance(time.Minute + time.Second)
			var tr tokenResponse
			e.postToken(t, o.Key, e.passwordForm(o)).want(t, http.StatusOK).decode(t, &tr)
			e.me(t, o.Key, tr.AccessToken).want(t, http.StatusOK)
			// Other owners were never locked.
			e.tokens(t, b)
		})
	})
}

// me sends GET /me with a key and an access token.
func (e *env) me(t *testing.T, key, token string) *result {
	t.Helper()
	return (&client{e: e, key: key, token: token}).get(t, "/me")
}
