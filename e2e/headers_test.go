package e2e

import (
	"net/http"
	"net/url"
	"testing"
)

// TestNosniffOnEveryResponse: every response, JSON or not, the router's
// own 404 and 405 included, tells browsers not to sniff its content type.
func TestNosniffOnEveryResponse(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.owner(t, e.biz)
		checks := []*result{
			e.get(t, "/healthz").want(t, http.StatusOK),
			e.get(t, "/metrics").want(t, http.StatusOK),
			owner.get(t, "/me").want(t, http.StatusOK),
			e.me(t, e.biz.Key, "not-a-token").want(t, http.StatusUnauthorized),
			e.postToken(t, e.biz.Key, url.Values{"grant_type": {"password"}}).want(t, http.StatusUnauthorized),
			e.sendUnchecked(t, e.newRequest(t, http.MethodGet, "/nope", nil)).want(t, http.StatusNotFound),
			e.sendUnchecked(t, e.newRequest(t, http.MethodPatch, "/me", "{}")).want(t, http.StatusMethodNotAllowed),
			e.web(t).get(t, "/developers").want(t, http.StatusOK),
		}
		for _, r := range checks {
			if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("%s -> %d: X-Content-Type-Options %q, want nosniff", r.what, r.Status, got)
			}
		}
	})
}
