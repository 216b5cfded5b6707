package e2e

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/loyalty/loyalty/internal/oauth"
)

var (
	clientIDOnPage = regexp.MustCompile(`id="client-id">([0-9a-f]{32})<`)
	secretOnPage   = regexp.MustCompile(`id="client-secret">([^<]+)<`)
	keyOnPage      = regexp.MustCompile(`id="application-key">([^<]+)<`)
)

func match(t *testing.T, re *regexp.Regexp, r *result) string {
	t.Helper()
	m := re.FindSubmatch(r.Body)
	if m == nil {
		t.Fatalf("%s: page has no %s", r.what, re)
	}
	return string(m[1])
}

// TestDeveloperPortal: sign-up, registration with the spec's fields, the
// secret shown once, regeneration invalidating the old secret, and apps
// private to their developer.
func TestDeveloperPortal(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		w := e.web(t)
		w.get(t, "/developers/signup").want(t, http.StatusOK)
		w.post(t, "/developers/signup", url.Values{"email": {"not-an-email"}, "password": {"short"}}).
			want(t, http.StatusUnprocessableEntity).has(t, "Enter a valid e-mail address.", "10 to 200 characters")
		r := w.post(t, "/developers/signup", url.Values{"name": {"Ada"}, "email": {"Ada@Apps.example"}, "password": {"dev-password-1"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/developers?notice=welcome" {
			t.Fatalf("sign-up: %d %s", r.Status, r.Header.Get("Location"))
		}
		w.get(t, "/developers").want(t, http.StatusOK).has(t, "Your apps", "No apps yet", "ada@apps.example")
		again := e.web(t)
		again.get(t, "/developers/signup")
		again.post(t, "/developers/signup", url.Values{"email": {"ada@apps.example"}, "password": {"dev-password-2"}}).
			want(t, http.StatusUnprocessableEntity).has(t, "already been taken")

		w.get(t, "/developers/apps/new").want(t, http.StatusOK)
		w.post(t, "/developers/apps", url.Values{"name": {"Pocket"}, "api": {"user"}, "grant": {"authorization_code"}, "redirect_uri": {callback}}).
			want(t, http.StatusUnprocessableEntity).has(t, "User-API apps support only the password grant.")
		w.post(t, "/developers/apps", url.Values{"name": {""}, "api": {"business"}, "grant": {"authorization_code"}, "redirect_uri": {"ftp://x"}}).
			want(t, http.StatusUnprocessableEntity).has(t, "The name is required", "absolute http(s) URL")
		// The post redirects to the app's page, which shows the secret once.
		posted := w.post(t, "/developers/apps", url.Values{"name": {"Cash Desk"}, "api": {"business"}, "grant": {"password"},
			"description": {"Point of sale."}}).want(t, http.StatusSeeOther)
		created := w.get(t, posted.Header.Get("Location")).want(t, http.StatusOK).has(t, "Pending approval", "shown only this once", "Point of sale.")
		id, secret := match(t, clientIDOnPage, created), match(t, secretOnPage, created)
		if posted.Header.Get("Location") != "/developers/apps/"+id {
			t.Errorf("registration redirected to %q, want the app's page", posted.Header.Get("Location"))
		}
		w.get(t, "/developers/apps/"+id).want(t, http.StatusOK).has(t, id).hasNot(t, secret)
		w.get(t, "/developers").want(t, http.StatusOK).has(t, "Cash Desk", id)

		form := func(secret string) url.Values {
			f := e.passwordForm(e.biz)
			f.Set("client_id", id)
			f.Set("client_secret", secret)
			return f
		}
		e.postToken(t, e.biz.Key, form(secret)).wantOAuthError(t, http.StatusBadRequest, "unauthorized_client") // pending
		if err := e.app.OAuth.SetAppStatus(context.Background(), id, oauth.AppApproved); err != nil {
			t.Fatal(err)
		}
		e.postToken(t, e.biz.Key, form(secret)).want(t, http.StatusOK)
		w.post(t, "/developers/apps/"+id+"/secret", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		regen := w.get(t, "/developers/apps/"+id).want(t, http.StatusOK).has(t, "Your new Client Secret")
		fresh := match(t, secretOnPage, regen)
		e.postToken(t, e.biz.Key, form(secret)).wantOAuthError(t, http.StatusUnauthorized, "invalid_client")
		e.postToken(t, e.biz.Key, form(fresh)).want(t, http.StatusOK)

		// Another developer sees nothing of it.
		stranger := e.web(t)
		stranger.get(t, "/developers/signup")
		stranger.post(t, "/developers/signup", url.Values{"email": {"eve@apps.example"}, "password": {"eve-password-1"}}).want(t, http.StatusSeeOther)
		stranger.get(t, "/developers/apps/"+id).want(t, http.StatusNotFound)
		stranger.post(t, "/developers/apps/"+id+"/secret", url.Values{"confirm": {"yes"}}).want(t, http.StatusNotFound)
		e.postToken(t, e.biz.Key, form(fresh)).want(t, http.StatusOK)
		// Signed out, the portal asks to sign in again.
		w.post(t, "/developers/signout", nil).want(t, http.StatusSeeOther)
		w.get(t, "/developers/apps/"+id).want(t, http.StatusSeeOther)
	})
}

// hasNot fails if the page body contains word.
func (r *result) hasNot(t *testing.T, word string) *result {
	t.Helper()
	if regexp.MustCompile(regexp.QuoteMeta(word)).Match(r.Body) {
		t.Errorf("%s: page contains %q", r.what, word)
	}
	return r
}

// TestSupportReview: support staff approve pending apps and suspend apps;
// a suspended app's tokens stop working at once.
func TestSupportReview(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		out := e.admin(t, "admin", "support", "create", "--email", "Help@Loyalty.example", "--password", "support-pass-1")
		if str(out["support_id"]) == "" {
			t.Fatalf("support create printed %v", out)
		}
		pending := e.codeApp(t, callback)
		if err := e.app.OAuth.SetAppStatus(context.Background(), pending.ID, "pending"); err == nil {
			t.Error("SetAppStatus accepted pending")
		}
		owner := e.owner(t, e.biz) // a token of the approved POS app
		owner.get(t, "/me").want(t, http.StatusOK)

		w := e.web(t)
		w.signIn(t, "/support", "help@loyalty.example", "support-pass-1")
		w.get(t, "/support").want(t, http.StatusOK).has(t, "App review", "POS", "/support/apps/"+e.client.ID+"/suspend")
		w.post(t, "/support/apps/"+e.client.ID+"/suspend", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		owner.get(t, "/me").wantError(t, http.StatusUnauthorized)
		e.postToken(t, e.biz.Key, e.passwordForm(e.biz)).wantOAuthError(t, http.StatusBadRequest, "unauthorized_client")
		w.get(t, "/support?notice=suspended").want(t, http.StatusOK).has(t, "The app is suspended")
		w.post(t, "/support/apps/"+e.client.ID+"/approve", nil).want(t, http.StatusSeeOther)
		owner.get(t, "/me").want(t, http.StatusOK)
		w.post(t, "/support/apps/0123456789abcdef0123456789abcdef/approve", nil).want(t, http.StatusNotFound)

		// Others cannot use support's forms.
		dev := e.web(t)
		dev.get(t, "/developers/signup")
		dev.post(t, "/developers/signup", url.Values{"email": {"dev@apps.example"}, "password": {"dev-password-1"}}).want(t, http.StatusSeeOther)
		dev.get(t, "/support").want(t, http.StatusOK).has(t, "Sign in to Loyalty support")
		dev.post(t, "/support/apps/"+e.client.ID+"/suspend", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		owner.get(t, "/me").want(t, http.StatusOK)
	})
}

// TestBusinessPortal: the owner sees and rotates the Application Key (the
// old one stops at once) and revokes a connected app (its access and
// refresh tokens stop).
func TestBusinessPortal(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		w := e.web(t)
		code := w.approve(t, e.biz, authorizeQuery(app, callback))
		var tr tokenResponse
		e.postToken(t, e.biz.Key, codeForm(app, callback, code, "")).want(t, http.StatusOK).decode(t, &tr)
		pos := e.owner(t, e.biz)

		page := w.get(t, "/business").want(t, http.StatusOK).has(t, "Corner Cafe", "Till Sync", "approved by you", "POS")
		if key := match(t, keyOnPage, page); key != e.biz.Key {
			t.Errorf("portal shows key %q, want %q", key, e.biz.Key)
		}
		w.post(t, "/business/key", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		page = w.get(t, "/business?notice=rotated").want(t, http.StatusOK).has(t, "The old key no longer works")
		newKey := match(t, keyOnPage, page)
		if newKey == e.biz.Key {
			t.Fatal("the key did not change")
		}
		pos.get(t, "/me").wantError(t, http.StatusUnauthorized)
		pos.key = newKey
		pos.get(t, "/me").want(t, http.StatusOK)
		e.biz.Key = newKey

		var tillID string
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT id FROM apps WHERE client_id = $1`, app.ID).Scan(&tillID)
		page.has(t, "/business/apps/"+tillID+"/revoke")
		till := &client{e: e, key: newKey, token: tr.AccessToken}
		till.get(t, "/me").want(t, http.StatusOK)
		w.post(t, "/business/apps/"+tillID+"/revoke", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		till.get(t, "/me").wantError(t, http.StatusUnauthorized)
		e.postToken(t, newKey, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr.RefreshToken},
			"client_id": {app.ID}, "client_secret": {app.Secret}}).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		pos.get(t, "/me").want(t, http.StatusOK)
		w.get(t, "/business").want(t, http.StatusOK).hasNot(t, "Till Sync")
		// Another owner cannot revoke this business's apps.
		other := e.newBusiness(t, "Elsewhere")
		o := e.web(t)
		o.signIn(t, "/business", other.Email, other.Password)
		o.post(t, "/business/key", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		pos.get(t, "/me").want(t, http.StatusOK)
	})
}
