package e2e

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/oauth"
)

const callback = "https://till.example/oauth/callback"

// TestAuthorizeErrors: an unknown client, an app that may not use the
// flow, or a redirect_uri that is not exactly the registered one gets an
// error page and no redirect; other mistakes go back to the callback.
func TestAuthorizeErrors(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		w := e.web(t)
		ctx := context.Background()
		pending, err := e.app.OAuth.CreateApp(ctx, oauth.NewApp{Name: "Waiting", API: oauth.APIBusiness, GrantType: oauth.GrantCode, RedirectURI: callback})
		if err != nil {
			t.Fatal(err)
		}
		page := func(name string, q url.Values) {
			t.Helper()
			r := w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusBadRequest).has(t, "This authorization link can't be used")
			if loc := r.Header.Get("Location"); loc != "" {
				t.Errorf("%s: redirected to %s", name, loc)
			}
		}
		base := authorizeQuery(app, callback)
		page("unknown client", with(base, "client_id", "0123456789abcdef0123456789abcdef"))
		page("malformed client", with(base, "client_id", "<script>"))
		page("pending app", authorizeQuery(creds{ID: pending.ClientID}, callback))
		page("password-grant app", authorizeQuery(e.client, callback))
		for _, wrong := range []string{callback + "/", "https://till.example/oauth/Callback", "https://TILL.example/oauth/callback",
			"http://till.example/oauth/callback", callback + "?x=1", "https://evil.example/oauth/callback", ""} {
			page("redirect_uri "+wrong, with(base, "redirect_uri", wrong))
		}

		back := func(q url.Values, code string) {
			t.Helper()
			r := w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusFound)
			to, _ := url.Parse(r.Header.Get("Location"))
			if !strings.HasPrefix(r.Header.Get("Location"), callback+"?") || to.Query().Get("error") != code || to.Query().Get("state") != "s-1" {
				t.Errorf("redirected to %q, want the callback with error=%s and the state", r.Header.Get("Location"), code)
			}
		}
		back(with(base, "response_type", "token"), "unsupported_response_type")
		back(with(base, "scope", ""), "invalid_scope")
		back(with(base, "scope", "user"), "invalid_scope")
		back(with(base, "code_challenge", challenge(strings.Repeat("v", 43))), "invalid_request") // no method: plain is not offered
		q := with(base, "code_challenge", "short")
		q.Set("code_challenge_method", "S256")
		back(q, "invalid_request")

		// Suspending the app closes the flow at once.
		w.get(t, "/oauth/authorize?"+authorizeQuery(app, callback).Encode()).want(t, http.StatusOK)
		if err := e.app.OAuth.SetAppStatus(ctx, app.ID, oauth.AppSuspended); err != nil {
			t.Fatal(err)
		}
		page("suspended app", authorizeQuery(app, callback))
	})
}

// TestAuthorizationCodeGrant: the code is bound to its client, callback,
// business and PKCE verifier, none of which burns it; it works once, for
// 10 minutes; its reuse revokes what it issued; denial issues nothing.
func TestAuthorizationCodeGrant(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		other := e.codeApp(t, callback)
		w := e.web(t)
		verifier := strings.Repeat("abcdefghij", 5)
		q := authorizeQuery(app, callback)
		q.Set("code_challenge", challenge(verifier))
		q.Set("code_challenge_method", "S256")
		code := w.approve(t, e.biz, q)

		e.postToken(t, e.biz.Key, codeForm(app, callback, code, verifier[1:]+"x")).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, "")).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		e.postToken(t, e.biz.Key, codeForm(other, callback, code, verifier)).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		e.postToken(t, e.biz.Key, codeForm(app, callback+"/", code, verifier)).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		e.postToken(t, e.newBusiness(t, "Elsewhere").Key, codeForm(app, callback, code, verifier)).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		bad := codeForm(app, callback, code, verifier)
		bad.Set("client_secret", "wrong")
		e.postToken(t, e.biz.Key, bad).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")

		var tr tokenResponse
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, verifier)).want(t, http.StatusOK).decode(t, &tr)
		owner := &client{e: e, key: e.biz.Key, token: tr.AccessToken}
		if id := owner.get(t, "/me").want(t, http.StatusOK).obj(t)["data"].(map[string]any)["id"]; id != e.biz.ID {
			t.Errorf("GET /me: business %v, want %s", id, e.biz.ID)
		}
		// The refresh token rotates within the code's chain...
		var next tokenResponse
		e.postToken(t, e.biz.Key, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken},
			"client_id": {app.ID}, "client_secret": {app.Secret}}).want(t, http.StatusOK).decode(t, &next)
		// ...so reusing the code revokes that one too.
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, verifier)).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		(&client{e: e, key: e.biz.Key, token: next.AccessToken}).get(t, "/me").wantError(t, http.StatusUnauthorized)

		// A code without a challenge refuses a verifier, and expires after 10 minutes.
		plain := authorizeQuery(app, callback)
		code = w.approve(t, e.biz, plain)
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, verifier)).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		e.oauth.Advance(oauth.CodeTTL + time.Second)
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, "")).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		e.oauth.Advance(-oauth.CodeTTL - time.Second)

		// Deny sends access_denied and the state, and no code.
		plain.Set("prompt", "consent")
		w.get(t, "/oauth/authorize?"+plain.Encode()).want(t, http.StatusOK).has(t, "wants to access")
		to, _ := url.Parse(w.post(t, "/oauth/authorize", with(plain, "decision", "deny")).want(t, http.StatusFound).Header.Get("Location"))
		if to.Query().Get("error") != "access_denied" || to.Query().Get("state") != "s-1" || to.Query().Has("code") {
			t.Errorf("deny redirected to %s", to)
		}
		// A password-grant app cannot redeem codes.
		pw := codeForm(e.client, callback, code, "")
		e.postToken(t, e.biz.Key, pw).wantOAuthError(t, http.StatusBadRequest, "unauthorized_client")
	})
}

// TestAuthorizeSignIn: the sign-in step of the flow, with a wrong
// password, and the consent page's "Not you?" sign-out coming back.
func TestAuthorizeSignIn(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		q := authorizeQuery(app, callback)
		w := e.web(t)
		w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusOK).has(t, "Sign in to connect Till Sync ")
		w.flowSignIn(t, q, e.biz.Email, "nope-nope-nope").want(t, http.StatusUnauthorized).has(t, "The e-mail address or password is incorrect.")
		// Without a session, a decision is not taken: the sign-in comes back.
		w.post(t, "/oauth/authorize", with(q, "decision", "approve")).want(t, http.StatusUnauthorized).has(t, "no longer signed in")
		r := w.flowSignIn(t, q, e.biz.Email, e.biz.Password).want(t, http.StatusSeeOther)
		if loc := r.Header.Get("Location"); loc != "/oauth/authorize?"+q.Encode() {
			t.Errorf("after sign-in: Location %q", loc)
		}
		w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusOK).has(t, "wants to access Corner Cafe",
			"Keeps the till and the program in step.", "admin", "till.example")
		r = w.post(t, "/business/signout", url.Values{"next": {"/oauth/authorize?" + q.Encode()}}).want(t, http.StatusSeeOther)
		if loc := r.Header.Get("Location"); loc != "/oauth/authorize?"+q.Encode() {
			t.Errorf("Not you? sign-out goes to %q", loc)
		}
		w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusOK).has(t, "Sign in to connect")
		// The consent page's CSP lets its form lead to the callback, and nowhere else.
		code := w.approve(t, e.biz, q)
		if code == "" {
			t.Fatal("no code")
		}
		page := w.get(t, "/oauth/authorize?"+with(q, "prompt", "consent").Encode()).want(t, http.StatusOK)
		if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' https://till.example;") {
			t.Errorf("consent CSP %q", csp)
		}
		// An outside next is ignored: sign-out is not an open redirect.
		r = w.post(t, "/business/signout", url.Values{"next": {"https://evil.example/"}}).want(t, http.StatusSeeOther)
		if loc := r.Header.Get("Location"); loc != "/business?notice=signedout" {
			t.Errorf("sign-out with an outside next goes to %q", loc)
		}
	})
}

// TestCodeExchangeRace: exchanges of one code racing each other leave at
// most one success, and since the code was reused, no working token.
func TestCodeExchangeRace(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		code := e.web(t).approve(t, e.biz, authorizeQuery(app, callback))
		results := make(chan *result, 5)
		var wg sync.WaitGroup
		for range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results <- e.sendUnchecked(t, e.tokenRequest(t, e.biz.Key, codeForm(app, callback, code, "")))
			}()
		}
		wg.Wait()
		close(results)
		wins := 0
		for r := range results {
			switch r.Status {
			case http.StatusOK:
				wins++
				var tr tokenResponse
				r.decode(t, &tr)
				(&client{e: e, key: e.biz.Key, token: tr.AccessToken}).get(t, "/me").wantError(t, http.StatusUnauthorized)
			case http.StatusBadRequest:
			default:
				t.Errorf("exchange: %d %s", r.Status, r.Body)
			}
		}
		if wins > 1 {
			t.Errorf("%d exchanges of one code succeeded", wins)
		}
	})
}

// TestRememberedConsent: once a business approved an app, the owner's
// next authorization returns a working code without the consent page,
// until the owner revokes the app, a code is replayed, or the app asks
// with prompt=consent; the sign-in is never skipped, and another
// business's approval does not count.
func TestRememberedConsent(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		q := authorizeQuery(app, callback)
		w := e.web(t)
		code := w.approve(t, e.biz, q)
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, "")).want(t, http.StatusOK)

		// remembered asks again and returns the code the callback gets.
		remembered := func(w *webClient) string {
			t.Helper()
			r := w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusFound)
			to, err := url.Parse(r.Header.Get("Location"))
			if err != nil || !strings.HasPrefix(to.String(), callback+"?") || to.Query().Get("code") == "" || to.Query().Get("state") != "s-1" {
				t.Fatalf("remembered consent redirected to %q, want the callback with a code and the state", r.Header.Get("Location"))
			}
			return to.Query().Get("code")
		}
		code = remembered(w)
		var tr tokenResponse
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, "")).want(t, http.StatusOK).decode(t, &tr)
		if id := (&client{e: e, key: e.biz.Key, token: tr.AccessToken}).get(t, "/me").want(t, http.StatusOK).obj(t)["data"].(map[string]any)["id"]; id != e.biz.ID {
			t.Errorf("the remembered code's token reads business %v, want %s", id, e.biz.ID)
		}

		// prompt=consent shows the page, and the page keeps asking for it.
		w.get(t, "/oauth/authorize?"+with(q, "prompt", "consent").Encode()).want(t, http.StatusOK).has(t, "wants to access Corner Cafe",
			`name="prompt" value="consent"`)

		// A new browser signs in first; then the consent is remembered.
		fresh := e.web(t)
		fresh.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusOK).has(t, "Sign in to connect")
		fresh.flowSignIn(t, q, e.biz.Email, e.biz.Password).want(t, http.StatusSeeOther)
		remembered(fresh)

		// Another business's owner is asked.
		other := e.newBusiness(t, "Elsewhere")
		ow := e.web(t)
		ow.get(t, "/oauth/authorize?"+q.Encode())
		ow.flowSignIn(t, q, other.Email, other.Password).want(t, http.StatusSeeOther)
		ow.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusOK).has(t, "wants to access Elsewhere")

		// Revoked in the business portal: asked again.
		portal := w.get(t, "/business").want(t, http.StatusOK)
		// Revoking asks first: the portal links to the confirmation page,
		// whose form posts confirm=yes to the same path.
		revoke := regexp.MustCompile(`href="(/business/apps/[0-9a-f]+/revoke)"`).FindSubmatch(portal.Body)
		if revoke == nil {
			t.Fatalf("the business portal offers no revoke form:\n%s", portal.Body)
		}
		w.get(t, string(revoke[1])).want(t, http.StatusOK).has(t, `action="`+string(revoke[1])+`"`, `name="confirm" value="yes"`)
		w.post(t, string(revoke[1]), url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusOK).has(t, "wants to access Corner Cafe")

		// A replayed code ends the remembered consent too.
		code = w.approve(t, e.biz, q)
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, "")).want(t, http.StatusOK)
		remembered(w)
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, "")).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		w.get(t, "/oauth/authorize?"+q.Encode()).want(t, http.StatusOK).has(t, "wants to access Corner Cafe")
	})
}
