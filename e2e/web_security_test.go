package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// postRoutes is every form post of the pages.
var postRoutes = []string{
	"/developers/signup", "/developers/signin", "/developers/signout", "/developers/apps",
	"/developers/apps/0123456789abcdef0123456789abcdef/secret",
	"/support/signin", "/support/signout",
	"/support/apps/0123456789abcdef0123456789abcdef/approve", "/support/apps/0123456789abcdef0123456789abcdef/suspend",
	"/business/signin", "/business/signout", "/business/key", "/business/apps/0123456789abcdef0123456789abcdef/revoke",
	"/oauth/authorize", "/referrals/1",
	"/business/staff", "/business/staff/0123456789abcdef0123456789abcdef/role",
	"/business/staff/0123456789abcdef0123456789abcdef/invitation", "/business/staff/0123456789abcdef0123456789abcdef/remove",
	"/business/invitation",
	"/business/password", "/developers/password", "/support/password", "/business/profile",
	"/business/password/forgot", "/developers/password/forgot", "/support/password/forgot",
	"/business/password/reset", "/developers/password/reset", "/support/password/reset",
	"/business/customers/0123456789abcdef0123456789abcdef/edit", "/business/customers/0123456789abcdef0123456789abcdef/enable",
	"/business/customers/0123456789abcdef0123456789abcdef/disable", "/business/customers/0123456789abcdef0123456789abcdef/delete",
	"/business/customers/0123456789abcdef0123456789abcdef/points", "/business/customers/0123456789abcdef0123456789abcdef/coupons",
	"/business/customers/0123456789abcdef0123456789abcdef/welcome",
	"/business/customers/0123456789abcdef0123456789abcdef/transactions/1/cancel",
	"/business/counter/0123456789abcdef0123456789abcdef/sale", "/business/counter/0123456789abcdef0123456789abcdef/redeem",
	"/business/counter/0123456789abcdef0123456789abcdef/claim", "/business/counter/0123456789abcdef0123456789abcdef/giftcard_sell",
	"/business/counter/0123456789abcdef0123456789abcdef/giftcard_pay",
	"/business/program/rules", "/business/program/offers", "/business/program/offers/1",
	"/business/program/offers/1/disable", "/business/program/offers/1/enable",
	"/business/imports", "/business/imports/1/start", "/business/imports/1/mapping",
}

// TestPagesCSRF: every form post without the page's CSRF token, with a
// wrong one, or without the CSRF cookie is 403, and changes nothing.
func TestPagesCSRF(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		w := e.web(t)
		w.signIn(t, "/business", e.biz.Email, e.biz.Password)
		key := e.biz.Key
		for _, path := range postRoutes {
			w.post(t, path, url.Values{"csrf_token": nil}).want(t, http.StatusForbidden).has(t, "This form has expired")
			w.post(t, path, url.Values{"csrf_token": {w.csrf[:len(w.csrf)-4] + "AAAA"}}).want(t, http.StatusForbidden)
		}
		// A token is worthless without the cookie it was made for.
		other := e.web(t)
		other.csrf = w.csrf
		other.post(t, "/business/signin", url.Values{"email": {e.biz.Email}, "password": {e.biz.Password}}).want(t, http.StatusForbidden)
		// Nothing happened: the owner is still signed in and the key unchanged.
		w.get(t, "/business").want(t, http.StatusOK).has(t, key)
		// The real form works.
		w.post(t, "/business/key", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		w.get(t, "/business").want(t, http.StatusOK).hasNot(t, key)
	})
}

// TestPagesHeaders: every page forbids framing and runs no script.
func TestPagesHeaders(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		w := e.web(t)
		for _, path := range []string{"/", "/developers", "/developers/signup", "/support", "/business",
			"/oauth/authorize?client_id=nope", "/developers/apps/new"} {
			r := w.get(t, path)
			if r.Status != http.StatusOK && r.Status != http.StatusBadRequest && r.Status != http.StatusSeeOther {
				t.Errorf("%s: status %d", r.what, r.Status)
			}
			csp := r.Header.Get("Content-Security-Policy")
			for _, want := range []string{"frame-ancestors 'none'", "default-src 'none'", "form-action 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("%s: Content-Security-Policy %q lacks %q", r.what, csp, want)
				}
			}
			if r.Header.Get("X-Frame-Options") != "DENY" || r.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: X-Frame-Options %q, Cache-Control %q", r.what, r.Header.Get("X-Frame-Options"), r.Header.Get("Cache-Control"))
			}
		}
		// A mistyped console address is the console's page, not the API's JSON.
		for _, path := range []string{"/business/countr", "/business/customers/x/y/z"} {
			r := w.get(t, path).want(t, http.StatusNotFound).has(t, "Page not found")
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("%s: Content-Type %q, want an HTML page", r.what, ct)
			}
		}
		css := w.get(t, "/static/style.css").want(t, http.StatusOK)
		if !strings.HasPrefix(css.Header.Get("Content-Type"), "text/css") {
			t.Errorf("style.css Content-Type %q", css.Header.Get("Content-Type"))
		}
	})
}

// setCookie returns the Set-Cookie line of cookie name in r.
func setCookie(r *result, name string) string {
	for _, line := range r.Header.Values("Set-Cookie") {
		if strings.HasPrefix(line, name+"=") {
			return line
		}
	}
	return ""
}

// TestSessionCookies: session and CSRF cookies are HttpOnly and
// SameSite=Lax, Secure over HTTPS only; sessions are stored hashed and
// end at sign-out.
func TestSessionCookies(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		w := e.web(t)
		page := w.get(t, "/business").want(t, http.StatusOK)
		r := w.post(t, "/business/signin", url.Values{"email": {e.biz.Email}, "password": {e.biz.Password}}).want(t, http.StatusSeeOther)
		for _, c := range []string{setCookie(page, "loyalty_csrf"), setCookie(r, "loyalty_owner")} {
			if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") || strings.Contains(c, "Secure") || c == "" {
				t.Errorf("over plain HTTP: Set-Cookie %q, want HttpOnly, SameSite=Lax and not Secure", c)
			}
		}

		// Only the HMAC of the cookie value is in the database.
		session := w.cookie("loyalty_owner")
		var raw, hashed int
		db := e.app.DB.SQL()
		db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM web_sessions WHERE id_hash = $1`, []byte(session)).Scan(&raw)
		db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM web_sessions WHERE id_hash = $1`, e.app.Hasher.Token(session)).Scan(&hashed)
		if raw != 0 || hashed != 1 {
			t.Errorf("sessions stored under the raw value: %d, under its hash: %d; want 0 and 1", raw, hashed)
		}
		w.post(t, "/business/signout", nil).want(t, http.StatusSeeOther)
		stolen := e.web(t)
		u, _ := url.Parse(e.url)
		stolen.c.Jar.SetCookies(u, []*http.Cookie{{Name: "loyalty_owner", Value: session}})
		stolen.get(t, "/business").want(t, http.StatusOK).has(t, "Sign in to your business")

		tls := httptest.NewTLSServer(e.app.Handler())
		t.Cleanup(tls.Close)
		s := e.webAt(t, tls.URL, tls.Client().Transport)
		page = s.get(t, "/business").want(t, http.StatusOK)
		r = s.post(t, "/business/signin", url.Values{"email": {e.biz.Email}, "password": {e.biz.Password}}).want(t, http.StatusSeeOther)
		for _, c := range []string{setCookie(page, "loyalty_csrf"), setCookie(r, "loyalty_owner")} {
			if !strings.Contains(c, "Secure") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
				t.Errorf("over HTTPS: Set-Cookie %q, want Secure, HttpOnly and SameSite=Lax", c)
			}
		}
		if hsts := r.Header.Get("Strict-Transport-Security"); hsts == "" {
			t.Error("over HTTPS: no Strict-Transport-Security")
		}
	})
}

// TestSessionExpiry: a portal session ends after an hour without a
// request, and twelve hours after sign-in however busy it is.
func TestSessionExpiry(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		signedIn := func(w *webClient) bool {
			t.Helper()
			return !strings.Contains(string(w.get(t, "/business").want(t, http.StatusOK).Body), "Sign in to your business")
		}
		w := e.web(t)
		w.signIn(t, "/business", e.biz.Email, e.biz.Password)
		// Used every 59 minutes, it lives on past the first hour.
		for range 3 {
			e.oauth.Advance(59 * time.Minute)
			if !signedIn(w) {
				t.Fatal("a session used within the hour ended")
			}
		}
		e.oauth.Advance(61 * time.Minute)
		if signedIn(w) {
			t.Fatal("a session unused for over an hour is still signed in")
		}

		busy := e.web(t)
		busy.signIn(t, "/business", e.biz.Email, e.biz.Password)
		for elapsed := time.Duration(0); elapsed+50*time.Minute < 12*time.Hour; elapsed += 50 * time.Minute {
			e.oauth.Advance(50 * time.Minute)
			if !signedIn(busy) {
				t.Fatalf("a busy session ended %s after sign-in", elapsed+50*time.Minute)
			}
		}
		e.oauth.Advance(50 * time.Minute)
		if signedIn(busy) {
			t.Error("a busy session outlived twelve hours")
		}
	})
}

// TestSignInLockout: like the password grant, 5 wrong passwords lock a
// web account for 15 minutes, whatever the next password.
func TestSignInLockout(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		dev := e.web(t)
		dev.get(t, "/developers/signup")
		dev.post(t, "/developers/signup", url.Values{"email": {"dev@apps.example"}, "password": {"dev-password-1"}}).want(t, http.StatusSeeOther)
		e.admin(t, "admin", "support", "create", "--email", "help@loyalty.example", "--password", "support-pass-1")
		accounts := []struct{ portal, email, password string }{
			{"/business", e.biz.Email, e.biz.Password},
			{"/developers", "dev@apps.example", "dev-password-1"},
			{"/support", "help@loyalty.example", "support-pass-1"},
		}
		for _, a := range accounts {
			w := e.web(t)
			w.get(t, a.portal)
			for i := 0; i < 5; i++ {
				w.post(t, a.portal+"/signin", url.Values{"email": {a.email}, "password": {"wrong-password"}}).
					want(t, http.StatusUnauthorized).has(t, "The e-mail address or password is incorrect.")
			}
			r := w.post(t, a.portal+"/signin", url.Values{"email": {a.email}, "password": {a.password}}).want(t, http.StatusTooManyRequests)
			if r.Header.Get("Retry-After") == "" {
				t.Errorf("%s: locked sign-in without Retry-After", a.portal)
			}
			e.oauth.Advance(16 * time.Minute) // the lock ends
			w.post(t, a.portal+"/signin", url.Values{"email": {a.email}, "password": {a.password}}).want(t, http.StatusSeeOther)
		}
		// The password grant shares the owner's lock.
		w := e.web(t)
		w.get(t, "/business")
		for i := 0; i < 5; i++ {
			w.post(t, "/business/signin", url.Values{"email": {e.biz.Email}, "password": {"wrong-password"}}).want(t, http.StatusUnauthorized)
		}
		e.postToken(t, e.biz.Key, e.passwordForm(e.biz)).wantOAuthError(t, http.StatusTooManyRequests, "invalid_grant")
	})
}
