package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/httpapi"
)

// TestGuessBudgetPerAddress (issue 12 item 5): one address spraying one PIN
// over many accounts — each staying under its own five-try lockout — is
// stopped once it spends its budget of failed credential checks: then every
// password grant from it, even with the right PIN, and every portal
// sign-in get 429 with Retry-After, and the alarm metric counts the
// failures by business.
func TestGuessBudgetPerAddress(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		const budget = 6
		e := start(t, engine, httpapi.Limits{Business: 100000, User: 100000, Token: 100000, Window: time.Minute, Guesses: budget})
		app := e.userApp(t)
		key := e.biz.Key
		for i := range budget + 2 {
			e.register(t, key, map[string]any{"email": fmt.Sprintf("spray%d@example.com", i), "pin_code": 2468})
		}
		for i := range budget {
			e.userLogin(t, app, key, fmt.Sprintf("spray%d@example.com", i), "1111").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		}
		// Budget spent: a guess on a fresh account, and even the right PIN.
		for _, pin := range []string{"1111", "2468"} {
			r := e.userLogin(t, app, key, fmt.Sprintf("spray%d@example.com", budget), pin)
			r.wantOAuthError(t, http.StatusTooManyRequests, "invalid_grant")
			if s, _ := strconv.Atoi(r.Header.Get("Retry-After")); s < 1 || s > 15*60 {
				t.Errorf("Retry-After %q, want 1..900 seconds", r.Header.Get("Retry-After"))
			}
		}
		// The portals share the budget.
		w := e.web(t)
		w.get(t, "/business").want(t, http.StatusOK)
		r := w.post(t, "/business/signin", url.Values{"email": {e.biz.Email}, "password": {e.biz.Password}})
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Errorf("portal sign-in after the budget: %d (Retry-After %q), want 429", r.Status, r.Header.Get("Retry-After"))
		}
		metrics := e.get(t, "/metrics").want(t, http.StatusOK)
		want := fmt.Sprintf(`loyalty_auth_failures_total{business=%q} %d`, e.biz.ID, budget)
		if !strings.Contains(string(metrics.Body), want) || !strings.Contains(string(metrics.Body), "loyalty_auth_guess_refusals_total 2") {
			t.Errorf("metrics lack %s and 2 refusals", want)
		}
	})
}

// TestGuessBudgetCountsOnlyFailures: right credentials spend nothing, so a
// shop's tills signing in from one address are never stopped by it.
func TestGuessBudgetCountsOnlyFailures(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, httpapi.Limits{Business: 100000, User: 100000, Token: 100000, Window: time.Minute, Guesses: 2})
		app := e.userApp(t)
		e.register(t, e.biz.Key, map[string]any{"email": "till@example.com", "pin_code": 2468})
		for range 10 {
			e.userLogin(t, app, e.biz.Key, "till@example.com", "2468").want(t, http.StatusOK)
		}
	})
}
