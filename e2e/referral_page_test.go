package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/web"
)

// referralLinkOf reads the referral_link the API gives a customer for the
// business's first referral program (nil when it gives none).
func (c *client) referralLinkOf(t *testing.T, customerID string) *string {
	t.Helper()
	var got struct {
		Included struct {
			ReferralPrograms []struct {
				ReferralLink *string `json:"referral_link"`
			} `json:"referral_programs"`
		} `json:"included"`
	}
	c.get(t, "/customers/"+customerID+"?include=referral_programs").want(t, http.StatusOK).decode(t, &got)
	if len(got.Included.ReferralPrograms) == 0 {
		t.Fatalf("customer %s has no referral program", customerID)
	}
	return got.Included.ReferralPrograms[0].ReferralLink
}

// TestReferralPage: the referral_link the API gives leads to a page that
// shows the business and the program's terms, and joining there creates
// the customer with the referral: the welcome message goes out and the
// first qualifying purchase pays both sides.
func TestReferralPage(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		prog := a.do(t, http.MethodPost, "/referral-programs", map[string]any{"cond_min_amount": 25, "referee_earns": 40,
			"referer_earns": 60, "expires_in": 14}).programOf(t)
		referrer := a.createCustomer(t, map[string]any{"email": "ana@friends.example", "first_name": "Ana"})
		shared := a.referralLinkOf(t, referrer.ID)
		if shared == nil {
			t.Fatal("the referrer has no referral_link")
		}
		link := *shared
		if !strings.HasPrefix(link, e.url+"/referrals/") {
			t.Fatalf("referral_link %q is not on this server", link)
		}
		path := strings.TrimPrefix(link, e.url)
		action, _, _ := strings.Cut(path, "?")

		w := e.web(t)
		w.get(t, path).want(t, http.StatusOK).has(t, "Join Corner Cafe", "Ana invited you",
			"40 points", "at least <strong>$25.00</strong>", "within 14 days", "Your friend earns 60 points")

		t.Run("joining creates the referred customer", func(t *testing.T) {
			r := w.post(t, action, url.Values{"first_name": {"Bruno"}, "email": {"Bruno@Friends.example"}, "referrer_id": {referrer.ID}})
			r.want(t, http.StatusSeeOther)
			if loc := r.Header.Get("Location"); loc != action+"/joined" {
				t.Fatalf("join redirected to %q, want %q", loc, action+"/joined")
			}
			w.get(t, action+"/joined").want(t, http.StatusOK).has(t, "Welcome to Corner Cafe")
			l := a.list(t, "email=eq|bruno@friends.example")
			if len(l.Data) != 1 {
				t.Fatalf("customers with the joined e-mail: %v", l.ids())
			}
			bruno := l.Data[0]
			if bruno.FirstName == nil || *bruno.FirstName != "Bruno" {
				t.Errorf("first name %v, want Bruno", bruno.FirstName)
			}
			e.waitMessage(t, "bruno@friends.example", 1)
			a.tierTransact(t, map[string]any{"intent": "reward", "amount": 25, "customer": map[string]any{"id": bruno.ID}})
			if got, ref := a.refPointsOf(t, bruno.ID), a.refPointsOf(t, referrer.ID); got != 25+40 || ref != 60 {
				t.Errorf("after the first purchase: referee %d (want 65), referrer %d (want 60)", got, ref)
			}
		})

		t.Run("what the form refuses", func(t *testing.T) {
			w.get(t, path).want(t, http.StatusOK)
			w.post(t, action, url.Values{"email": {""}, "referrer_id": {referrer.ID}}).
				want(t, http.StatusUnprocessableEntity).has(t, "Enter your e-mail address.")
			w.post(t, action, url.Values{"email": {"not-an-address"}, "referrer_id": {referrer.ID}}).
				want(t, http.StatusUnprocessableEntity).has(t, "Please correct the fields marked below.")
			// A member cannot join again, and the referrer cannot refer themselves.
			w.post(t, action, url.Values{"email": {"bruno@friends.example"}, "referrer_id": {referrer.ID}}).
				want(t, http.StatusUnprocessableEntity).has(t, "already been taken")
			// The referrer id is part of the link: one that is not a
			// customer of the business makes the link invalid.
			w.post(t, action, url.Values{"email": {"carla@friends.example"}, "referrer_id": {"0123456789abcdef0123456789abcdef"}}).
				want(t, http.StatusNotFound)
			w.get(t, action+"?referrer_id=nope").want(t, http.StatusNotFound)
			w.get(t, "/referrals/999999?referrer_id="+referrer.ID).want(t, http.StatusNotFound)
			w.get(t, "/referrals/abc?referrer_id="+referrer.ID).want(t, http.StatusNotFound)
			if l := a.list(t, "email=eq|carla@friends.example"); len(l.Data) != 0 {
				t.Errorf("a refused join created %v", l.ids())
			}
		})

		t.Run("another business's referrer is not valid here", func(t *testing.T) {
			other := e.cliBusiness(t, "Other Shop", "per_spend")
			stranger := e.owner(t, other).createCustomer(t, map[string]any{"email": "stranger@friends.example"})
			w.get(t, action+"?referrer_id="+stranger.ID).want(t, http.StatusNotFound)
		})

		t.Run("a program closed or not shared by link has no page", func(t *testing.T) {
			a.do(t, http.MethodPut, programPath(prog.ID), map[string]any{"link_referral_enabled": false}).programOf(t)
			w.get(t, path).want(t, http.StatusNotFound).has(t, "Page not found")
			a.do(t, http.MethodPut, programPath(prog.ID), map[string]any{"link_referral_enabled": true, "enabled": false}).programOf(t)
			w.get(t, path).want(t, http.StatusNotFound)
			// The API offers no link that leads nowhere.
			if l := a.referralLinkOf(t, referrer.ID); l != nil {
				t.Errorf("a disabled program's referral_link is %q, want null", *l)
			}
			a.do(t, http.MethodPut, programPath(prog.ID), map[string]any{"enabled": true}).programOf(t)
			w.get(t, path).want(t, http.StatusOK)
		})

		t.Run("posts are budgeted per network", func(t *testing.T) {
			// Other subtests spent some of the budget; spend the rest.
			spent := 0
			for ; spent <= web.SignInLimit; spent++ {
				r := w.post(t, action, url.Values{"email": {"not-an-address"}, "referrer_id": {referrer.ID}})
				if r.Status == http.StatusTooManyRequests {
					if r.Header.Get("Retry-After") == "" {
						t.Errorf("429 without Retry-After")
					}
					r.has(t, "Too many attempts")
					break
				}
				r.want(t, http.StatusUnprocessableEntity)
			}
			if spent > web.SignInLimit {
				t.Errorf("%d posts within a minute were all accepted; the budget is %d", spent, web.SignInLimit)
			}
		})
	})
}
