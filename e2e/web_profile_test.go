package e2e

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestBusinessProfilePage: a manager edits the business's profile; wrong
// fields come back named; the saved profile shows on the referral page
// (name, about, logo, currency, brand colour within the page's CSP) and
// in the welcome e-mail of the next customer; the save is audited once,
// a reload repeats nothing.
func TestBusinessProfilePage(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.ownerConsole(t)
		manager := e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
		manager.get(t, "/business/profile").want(t, http.StatusOK).has(t, `value="Corner Cafe"`, `value="UTC"`)

		form := url.Values{"name": {"Corner Café"}, "about": {"Coffee since 1999."}, "logo": {"https://cdn.cafe.example/logo.png"},
			"cover": {""}, "category": {"cafe"}, "currency": {"EUR"}, "time_zone": {"Europe/Paris"}, "brand_color": {"#b45309"}}
		bad := url.Values{}
		for k, v := range form {
			bad[k] = v
		}
		bad.Set("time_zone", "Mars/Olympus")
		bad.Set("brand_color", "red")
		bad.Set("logo", "http://cdn.cafe.example/logo.png")
		manager.post(t, "/business/profile", bad).want(t, http.StatusUnprocessableEntity).
			has(t, "IANA name", "#rrggbb", "https:// address", `value="Mars/Olympus"`)
		r := manager.post(t, "/business/profile", form).want(t, http.StatusSeeOther)
		if r.Header.Get("Location") != "/business/profile?notice=profile" {
			t.Errorf("save led to %q", r.Header.Get("Location"))
		}
		for range 2 {
			manager.get(t, "/business/profile?notice=profile").want(t, http.StatusOK).has(t, "The profile was saved", "Europe/Paris")
		}
		got := e.auditActions(t, e.biz.ID)
		if got[0] != "profile.updated Corner Café by mgr@cafe.example" || strings.Count(strings.Join(got, "\n"), "profile.updated") != 1 {
			t.Errorf("audit log %q, want one profile update by the manager", got)
		}
		manager.get(t, "/business/audit").want(t, http.StatusOK).has(t, "Updated the business profile", "Times are in Europe/Paris", "UTC")

		// The referral page wears it.
		a := e.owner(t, e.biz)
		a.do(t, http.MethodPost, "/referral-programs", map[string]any{"cond_min_amount": 25, "referee_earns": 40,
			"referer_earns": 60, "expires_in": 14}).want(t, http.StatusOK)
		referrer := a.createCustomer(t, map[string]any{"email": "ana@friends.example", "first_name": "Ana"})
		link := *a.referralLinkOf(t, referrer.ID)
		page := e.web(t).get(t, strings.TrimPrefix(link, e.url)).want(t, http.StatusOK).
			has(t, "Join Corner Café", "Coffee since 1999.", `src="https://cdn.cafe.example/logo.png"`, "at least <strong>€25.00</strong>")
		csp := page.Header.Get("Content-Security-Policy")
		nonce := regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(csp)
		if nonce == nil || !strings.Contains(csp, "img-src 'self' data: https://cdn.cafe.example") || !strings.Contains(csp, "default-src 'none'") {
			t.Fatalf("referral page CSP %q, want a style nonce and the logo's origin", csp)
		}
		page.has(t, `<style nonce="`+nonce[1]+`">`, "--brand: #")

		// The next customer's welcome e-mail is signed with the new name.
		a.createCustomer(t, map[string]any{"email": "bo@friends.example"})
		var subject, body string
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT subject, body FROM outbox WHERE recipient = 'bo@friends.example'`).
			Scan(&subject, &body)
		if subject != "Welcome to Corner Café" || !strings.Contains(body, "See you soon,\nCorner Café") || !tokenLine.MatchString(body) {
			t.Errorf("welcome e-mail %q:\n%s", subject, body)
		}
	})
}
