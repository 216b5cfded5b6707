package e2e

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStaffInvitation: the owner invites a cashier by e-mail; the
// invitation's token works once and not after 72 hours; the cashier signs
// in at /business and lands on the counter; the owner changes the role
// and removes the member, who is signed out at once. Every step is in the
// audit log, and a reload after a post repeats nothing.
func TestStaffInvitation(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.ownerConsole(t)
		owner.get(t, "/business/staff").want(t, http.StatusOK).has(t, "Invite a team member", e.biz.Email)
		owner.post(t, "/business/staff", url.Values{"email": {"nope"}, "role": {"cashier"}}).
			want(t, http.StatusUnprocessableEntity).has(t, "Enter a valid e-mail address.")
		owner.post(t, "/business/staff", url.Values{"email": {e.biz.Email}, "role": {"cashier"}}).
			want(t, http.StatusUnprocessableEntity).has(t, "already has a business account")

		// Without the page's CSRF token nobody is invited.
		owner.post(t, "/business/staff", url.Values{"email": {"forged@cafe.example"}, "role": {"manager"}, "csrf_token": {""}}).
			want(t, http.StatusForbidden)
		if n := e.mailCount(t, "forged@cafe.example"); n != 0 {
			t.Errorf("a post without CSRF token sent %d invitations", n)
		}
		token := e.invite(t, owner, "Cash@Cafe.example", "cashier")
		// Reloading the page the post led to sends nothing more.
		for range 2 {
			owner.get(t, "/business/staff?notice=invited").want(t, http.StatusOK).has(t, "The invitation is on its way", "cash@cafe.example", "Invited")
		}
		if n := e.mailCount(t, "cash@cafe.example"); n != 1 {
			t.Errorf("%d invitations sent, want 1", n)
		}
		body, _ := e.mailTo(t, "cash@cafe.example")
		if !strings.Contains(body, e.url+"/business/invitation?token=") || !strings.Contains(body, "as a cashier") {
			t.Errorf("invitation e-mail does not link to the invitation page on this host:\n%s", body)
		}

		guest := e.web(t)
		guest.get(t, "/business/invitation?token=wrong").want(t, http.StatusNotFound).has(t, "no longer valid")
		guest.get(t, "/business/invitation?token="+url.QueryEscape(token)).want(t, http.StatusOK).
			has(t, "Join Corner Cafe", "cash@cafe.example", "as a cashier")
		accept := func(password, again string) *result {
			return guest.post(t, "/business/invitation", url.Values{"token": {token}, "password": {password}, "password_again": {again}})
		}
		accept("cashier-pass-1", "cashier-pass-2").want(t, http.StatusUnprocessableEntity).has(t, "The two passwords differ.")
		accept("short", "short").want(t, http.StatusUnprocessableEntity).has(t, "10 to 200 characters")
		r := accept("cashier-pass-1", "cashier-pass-1").want(t, http.StatusSeeOther)
		if r.Header.Get("Location") != "/business?notice=joined" {
			t.Errorf("accepted: redirected to %q", r.Header.Get("Location"))
		}
		// The token works once.
		accept("cashier-pass-3", "cashier-pass-3").want(t, http.StatusNotFound)
		guest.get(t, "/business/invitation?token="+url.QueryEscape(token)).want(t, http.StatusNotFound)

		cashier := e.web(t)
		cashier.signIn(t, "/business", "cash@cafe.example", "cashier-pass-1")
		home := cashier.get(t, "/business").want(t, http.StatusSeeOther)
		if home.Header.Get("Location") != "/business/counter" {
			t.Errorf("a cashier's /business leads to %q, want the counter", home.Header.Get("Location"))
		}
		cashier.get(t, "/business/counter").want(t, http.StatusOK).has(t, "Counter", "Corner Cafe", "cashier").hasNot(t, `href="/business/staff"`)
		// A staff session is no owner's: the consent page asks to sign in.
		app := e.codeApp(t, callback)
		cashier.get(t, "/oauth/authorize?"+authorizeQuery(app, callback).Encode()).want(t, http.StatusOK).has(t, "Sign in to connect")

		// An invitation expires after 72 hours.
		late := e.invite(t, owner, "late@cafe.example", "manager")
		e.db.Advance(72*time.Hour + time.Minute)
		guest.get(t, "/business/invitation?token="+url.QueryEscape(late)).want(t, http.StatusNotFound)
		guest.post(t, "/business/invitation", url.Values{"token": {late}, "password": {"manager-pass-1"}, "password_again": {"manager-pass-1"}}).
			want(t, http.StatusNotFound)
		lateID := e.staffID(t, "late@cafe.example")
		owner.get(t, "/business/staff")
		owner.post(t, "/business/staff/"+lateID+"/invitation", nil).want(t, http.StatusSeeOther)
		_, fresh := e.mailTo(t, "late@cafe.example")
		if fresh == late {
			t.Fatal("the new invitation carries the old token")
		}
		guest.get(t, "/business/invitation?token="+url.QueryEscape(fresh)).want(t, http.StatusOK).has(t, "as a manager")

		id := e.staffID(t, "cash@cafe.example")
		owner.get(t, "/business/staff")
		owner.post(t, "/business/staff/"+id+"/role", url.Values{"role": {"manager"}}).want(t, http.StatusSeeOther)
		cashier.get(t, "/business/counter").want(t, http.StatusOK).has(t, "manager")
		owner.post(t, "/business/staff/"+id+"/role", url.Values{"role": {"owner"}}).want(t, http.StatusUnprocessableEntity)

		owner.post(t, "/business/staff/"+id+"/remove", nil).want(t, http.StatusSeeOther)
		cashier.get(t, "/business/counter").want(t, http.StatusOK) // not confirmed: still there
		owner.get(t, "/business/staff/"+id+"/remove").want(t, http.StatusOK).has(t, "Remove cash@cafe.example from your staff?")
		owner.post(t, "/business/staff/"+id+"/remove", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		cashier.get(t, "/business/counter").want(t, http.StatusSeeOther)
		cashier.get(t, "/business").want(t, http.StatusOK).has(t, "Sign in to your business")
		cashier.post(t, "/business/signin", url.Values{"email": {"cash@cafe.example"}, "password": {"cashier-pass-1"}}).
			want(t, http.StatusUnauthorized)

		got := e.auditActions(t, e.biz.ID)
		want := []string{
			"staff.removed cash@cafe.example by " + e.biz.Email,
			"staff.role_changed cash@cafe.example by " + e.biz.Email,
			"staff.reinvited late@cafe.example by " + e.biz.Email,
			"staff.invited late@cafe.example by " + e.biz.Email,
			"staff.joined cash@cafe.example by cash@cafe.example",
			"staff.invited cash@cafe.example by " + e.biz.Email,
		}
		if !slices.Equal(got, want) {
			t.Errorf("audit log:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	})
}

// TestStaffSignInLockout: a staff member's sign-in locks like the owner's,
// after 5 wrong passwords for 15 minutes.
func TestStaffSignInLockout(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.ownerConsole(t)
		e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
		w := e.web(t)
		w.get(t, "/business")
		for range 5 {
			w.post(t, "/business/signin", url.Values{"email": {"mgr@cafe.example"}, "password": {"wrong-password"}}).
				want(t, http.StatusUnauthorized).has(t, "The e-mail address or password is incorrect.")
		}
		r := w.post(t, "/business/signin", url.Values{"email": {"mgr@cafe.example"}, "password": {"manager-pass-1"}}).
			want(t, http.StatusTooManyRequests)
		if r.Header.Get("Retry-After") == "" {
			t.Error("a locked sign-in without Retry-After")
		}
		e.oauth.Advance(16 * time.Minute)
		w.post(t, "/business/signin", url.Values{"email": {"mgr@cafe.example"}, "password": {"manager-pass-1"}}).want(t, http.StatusSeeOther)
	})
}
