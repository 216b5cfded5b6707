package e2e

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// TestPostRedirectGet: every successful form post answers 303 to a page,
// so reloading what the browser shows repeats nothing; the client secret
// rides along once, sealed for the session that made it.
func TestPostRedirectGet(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		w := e.web(t)
		w.get(t, "/developers/signup")
		w.post(t, "/developers/signup", url.Values{"email": {"prg@apps.example"}, "password": {"dev-password-1"}}).want(t, http.StatusSeeOther)
		w.get(t, "/developers/apps/new")
		posted := w.post(t, "/developers/apps", url.Values{"name": {"Once"}, "api": {"business"}, "grant": {"password"}}).
			want(t, http.StatusSeeOther)
		to := posted.Header.Get("Location")
		flash := w.cookie("loyalty_secret")
		page := w.get(t, to).want(t, http.StatusOK).has(t, "Your Client Secret")
		secret := match(t, secretOnPage, page)
		// A reload shows the page without the secret, and registers nothing.
		w.get(t, to).want(t, http.StatusOK).hasNot(t, secret)
		var apps int
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM apps WHERE name = 'Once'`).Scan(&apps)
		if apps != 1 {
			t.Errorf("%d apps named Once, want 1", apps)
		}
		// The flash cookie opens in no other session, even the same
		// developer's in another browser.
		other := e.web(t)
		other.signIn(t, "/developers", "prg@apps.example", "dev-password-1")
		u, _ := url.Parse(e.url + to)
		other.c.Jar.SetCookies(u, []*http.Cookie{{Name: "loyalty_secret", Value: flash, Path: u.Path}})
		other.get(t, to).want(t, http.StatusOK).has(t, "Once").hasNot(t, secret)
	})
}

// TestDestructiveActionsAsk: rotating the key, revoking an app, suspending
// an app and regenerating a secret each show a confirmation page first; a
// post without confirm=yes changes nothing and leads to that page.
func TestDestructiveActionsAsk(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		owner := e.web(t)
		owner.approve(t, e.biz, authorizeQuery(app, callback))
		pos := e.owner(t, e.biz)
		var tillID string
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT id FROM apps WHERE client_id = $1`, app.ID).Scan(&tillID)

		asks := func(w *webClient, path string, words ...string) {
			t.Helper()
			r := w.post(t, path, nil).want(t, http.StatusSeeOther)
			if r.Header.Get("Location") != path {
				t.Errorf("POST %s without confirm: Location %q, want its confirmation page", path, r.Header.Get("Location"))
			}
			w.get(t, path).want(t, http.StatusOK).has(t, append(words, `name="confirm" value="yes"`, `action="`+path+`"`)...)
		}
		asks(owner, "/business/key", "Rotate the Application Key?", "stops working immediately")
		asks(owner, "/business/apps/"+tillID+"/revoke", "Revoke the access of Till Sync", "stop working immediately")
		owner.get(t, "/business").want(t, http.StatusOK).has(t, e.biz.Key, "Till Sync")
		pos.get(t, "/me").want(t, http.StatusOK)

		e.admin(t, "admin", "support", "create", "--email", "help@loyalty.example", "--password", "support-pass-1")
		staff := e.web(t)
		staff.signIn(t, "/support", "help@loyalty.example", "support-pass-1")
		asks(staff, "/support/apps/"+e.client.ID+"/suspend", "Suspend POS?", "stop working at once")
		pos.get(t, "/me").want(t, http.StatusOK)

		dev := e.web(t)
		dev.get(t, "/developers/signup")
		dev.post(t, "/developers/signup", url.Values{"email": {"ask@apps.example"}, "password": {"dev-password-1"}}).want(t, http.StatusSeeOther)
		dev.get(t, "/developers/apps/new")
		to := dev.post(t, "/developers/apps", url.Values{"name": {"Asked"}, "api": {"business"}, "grant": {"password"}}).
			want(t, http.StatusSeeOther).Header.Get("Location")
		secret := match(t, secretOnPage, dev.get(t, to))
		asks(dev, to+"/secret", "Regenerate the Client Secret of Asked?")
		var hash []byte
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT secret_hash FROM apps WHERE name = 'Asked'`).Scan(&hash)
		if string(hash) != string(e.app.Hasher.Token(secret)) {
			t.Error("the client secret changed without confirmation")
		}
		// Confirmed, each acts.
		owner.post(t, "/business/key", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		pos.get(t, "/me").wantError(t, http.StatusUnauthorized)
	})
}
