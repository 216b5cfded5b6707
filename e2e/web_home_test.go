package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestLandingPage: / is a page linking the portals and the API reference,
// while an unknown path is still the API's JSON 404 (one under /business
// is the console's page: TestPagesHeaders).
func TestLandingPage(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		w := e.web(t)
		home := w.get(t, "/").want(t, http.StatusOK)
		if ct := home.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET /: Content-Type %q, want HTML", ct)
		}
		home.has(t, `href="/business"`, `href="/developers"`, `href="/support"`, `href="/openapi.yaml"`, "Business console")
		if csp := home.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("GET /: Content-Security-Policy %q", csp)
		}
		for _, path := range []string{"/nope", "/businesses/nope", "/index.html"} {
			r := w.get(t, path).want(t, http.StatusNotFound)
			var body map[string]any
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || json.Unmarshal(r.Body, &body) != nil {
				t.Errorf("GET %s: Content-Type %q body %s, want the API's JSON 404", path, ct, r.Body)
			}
		}
		w.get(t, "/openapi.yaml").want(t, http.StatusOK).has(t, "openapi:")

		// A newcomer is told which account opens the console, as serve's
		// banner and the README tell it.
		w.get(t, "/business").want(t, http.StatusOK).has(t, "Sign in to your business",
			"Sign in with the owner you created", "<code>loyalty admin business create</code>")
		home.has(t, "Sign in with the owner you created")
	})
}
