package e2e

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// portalAccount is an account of a portal, for the password tests.
type portalAccount struct {
	portal, email, password string
	business                bool // it is in the business's audit log
}

// portalAccounts makes one account of each kind: the owner, a manager,
// a developer and a support account.
func (e *env) portalAccounts(t *testing.T) []portalAccount {
	t.Helper()
	owner := e.ownerConsole(t)
	e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
	dev := e.web(t)
	dev.get(t, "/developers/signup")
	dev.post(t, "/developers/signup", url.Values{"email": {"dev@apps.example"}, "password": {"dev-password-1"}}).want(t, http.StatusSeeOther)
	e.admin(t, "admin", "support", "create", "--email", "help@loyalty.example", "--password", "support-pass-1")
	return []portalAccount{
		{"/business", e.biz.Email, e.biz.Password, true},
		{"/business", "mgr@cafe.example", "manager-pass-1", true},
		{"/developers", "dev@apps.example", "dev-password-1", false},
		{"/support", "help@loyalty.example", "support-pass-1", false},
	}
}

// TestPasswordReset: every portal account can reset its password by
// e-mail: the token is hashed, works once, not after an hour, signs every
// browser out; asking says nothing about whether the address exists, and
// one account gets at most 3 e-mails an hour.
func TestPasswordReset(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		// Each account on a service of its own: sign-in and reset posts
		// share a budget per client address, and the tests all come from
		// one.
		for i := range 4 {
			e := start(t, engine, roomy)
			a := e.portalAccounts(t)[i]
			resetFlow(t, e, a)
		}
	})
}

// resetFlow resets the password of account a of e.
func resetFlow(t *testing.T, e *env, a portalAccount) {
	t.Helper()
	signedIn := e.web(t)
	signedIn.signIn(t, a.portal, a.email, a.password)
	w := e.web(t)
	w.get(t, a.portal).want(t, http.StatusOK).has(t, a.portal+"/password/forgot")
	w.get(t, a.portal+"/password/forgot").want(t, http.StatusOK)
	for _, email := range []string{"nobody@nowhere.example", strings.ToUpper(a.email)} {
		r := w.post(t, a.portal+"/password/forgot", url.Values{"email": {email}}).want(t, http.StatusSeeOther)
		if r.Header.Get("Location") != a.portal+"/password/forgot?notice=resetsent" {
			t.Errorf("%s: reset request for %s led to %q", a.portal, email, r.Header.Get("Location"))
		}
	}
	if n := e.mailCount(t, "nobody@nowhere.example"); n != 0 {
		t.Errorf("a reset e-mail went to an unknown address")
	}
	body, token := e.mailTo(t, a.email)
	if !strings.Contains(body, a.portal+"/password/reset") {
		t.Errorf("%s: the reset e-mail does not name the reset page:\n%s", a.portal, body)
	}
	var hashed int
	e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM account_tokens WHERE token_hash = $1`,
		e.app.Hasher.Token(token)).Scan(&hashed)
	if hashed != 1 {
		t.Errorf("%s: %d tokens stored under the hash of the e-mailed one, want 1", a.portal, hashed)
	}
	w.get(t, a.portal+"/password/reset?token=nope").want(t, http.StatusNotFound).has(t, "no longer valid")
	// Another portal's page does not take the token.
	other := map[string]string{"/business": "/developers", "/developers": "/support", "/support": "/business"}[a.portal]
	w.get(t, other+"/password/reset?token="+url.QueryEscape(token)).want(t, http.StatusNotFound)
	w.get(t, a.portal+"/password/reset?token="+url.QueryEscape(token)).want(t, http.StatusOK).has(t, a.email)
	form := func(p1, p2 string) url.Values {
		return url.Values{"token": {token}, "password": {p1}, "password_again": {p2}}
	}
	w.post(t, a.portal+"/password/reset", form("new-password-1", "new-password-2")).want(t, http.StatusUnprocessableEntity)
	w.post(t, a.portal+"/password/reset", form("short", "short")).want(t, http.StatusUnprocessableEntity).has(t, "10 to 200 characters")
	r := w.post(t, a.portal+"/password/reset", form("new-password-1", "new-password-1")).want(t, http.StatusSeeOther)
	if r.Header.Get("Location") != a.portal+"?notice=reset" {
		t.Errorf("%s: reset led to %q", a.portal, r.Header.Get("Location"))
	}
	// Once only.
	w.post(t, a.portal+"/password/reset", form("new-password-2", "new-password-2")).want(t, http.StatusNotFound)
	w.get(t, a.portal+"/password/reset?token="+url.QueryEscape(token)).want(t, http.StatusNotFound)
	// Every browser is signed out; the new password signs in, the old does not.
	signedIn.get(t, a.portal).want(t, http.StatusOK).has(t, "Sign in")
	w.post(t, a.portal+"/signin", url.Values{"email": {a.email}, "password": {a.password}}).want(t, http.StatusUnauthorized)
	w.signIn(t, a.portal, a.email, "new-password-1")

	// An hour later a token no longer works.
	w.get(t, a.portal+"/password/forgot")
	w.post(t, a.portal+"/password/forgot", url.Values{"email": {a.email}}).want(t, http.StatusSeeOther)
	_, late := e.mailTo(t, a.email)
	e.db.Advance(61 * time.Minute)
	w.get(t, a.portal+"/password/reset?token="+url.QueryEscape(late)).want(t, http.StatusNotFound)
	w.post(t, a.portal+"/password/reset", url.Values{"token": {late}, "password": {"new-password-3"}, "password_again": {"new-password-3"}}).
		want(t, http.StatusNotFound)

	// At most 3 e-mails an hour to one account.
	before := e.mailCount(t, a.email)
	for range 4 {
		w.post(t, a.portal+"/password/forgot", url.Values{"email": {a.email}}).want(t, http.StatusSeeOther)
	}
	if n := e.mailCount(t, a.email) - before; n != 3 {
		t.Errorf("%s: %d reset e-mails in an hour, want 3", a.portal, n)
	}
	if a.business {
		want := "password.reset " + a.email + " by " + a.email
		if got := e.auditActions(t, e.biz.ID); !slices.Contains(got, want) {
			t.Errorf("audit log %q lacks %q", got, want)
		}
	}
}

// TestPasswordChange: a signed-in account of every portal changes its
// password with the current one; its other browsers are signed out, this
// one is not; a wrong current password counts toward the lockout.
func TestPasswordChange(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		for _, a := range e.portalAccounts(t) {
			other := e.web(t)
			other.signIn(t, a.portal, a.email, a.password)
			w := e.web(t)
			w.signIn(t, a.portal, a.email, a.password)
			w.get(t, a.portal+"/password").want(t, http.StatusOK).has(t, "Change your password")
			change := func(current, p1, p2 string) *result {
				return w.post(t, a.portal+"/password", url.Values{"current_password": {current}, "password": {p1}, "password_again": {p2}})
			}
			change("wrong-password", "changed-pass-1", "changed-pass-1").want(t, http.StatusUnprocessableEntity).has(t, "The current password is incorrect.")
			change(a.password, "changed-pass-1", "changed-pass-2").want(t, http.StatusUnprocessableEntity).has(t, "The two new passwords differ.")
			change(a.password, a.password, a.password).want(t, http.StatusUnprocessableEntity)
			r := change(a.password, "changed-pass-1", "changed-pass-1").want(t, http.StatusSeeOther)
			if r.Header.Get("Location") != a.portal+"/password?notice=password" {
				t.Errorf("%s: change led to %q", a.portal, r.Header.Get("Location"))
			}
			// A reload of the page shown after the post changes nothing.
			w.get(t, a.portal+"/password?notice=password").want(t, http.StatusOK).has(t, "Your password was changed.")
			w.get(t, a.portal+"/password").want(t, http.StatusOK)
			other.get(t, a.portal).want(t, http.StatusOK).has(t, "Sign in")
			fresh := e.web(t)
			fresh.signIn(t, a.portal, a.email, "changed-pass-1")

			// Wrong current passwords lock the account like wrong sign-ins.
			for range 5 {
				change("wrong-password", "changed-pass-2", "changed-pass-2").want(t, http.StatusUnprocessableEntity)
			}
			fresh.get(t, a.portal)
			fresh.post(t, a.portal+"/signin", url.Values{"email": {a.email}, "password": {"changed-pass-1"}}).want(t, http.StatusTooManyRequests)
			e.oauth.Advance(16 * time.Minute)
		}
		got := e.auditActions(t, e.biz.ID)
		for _, want := range []string{"password.changed " + e.biz.Email + " by " + e.biz.Email, "password.changed mgr@cafe.example by mgr@cafe.example"} {
			if !slices.Contains(got, want) {
				t.Errorf("audit log %q lacks %q", got, want)
			}
		}
	})
}
