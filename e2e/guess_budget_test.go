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

// TestGuessBudgetPerAddress (issue 12 item 5, issue 35 item 2): one
// source spraying one PIN over many accounts — each staying under its own
// five-try lockout — is stopped once it spends its budget of failed
// credential checks on accounts it never signed in to: then a guess on a
// fresh account, even with the right PIN, gets 429 with Retry-After,
// while an account it signed in to correctly before still gets in. A
// confidential client (its secret proved) has a budget of its own, so the
// portals from the same address are not refused for its failures; the
// portals' own spraying is held to the address's budget. The alarm metric
// counts the failures by business.
func TestGuessBudgetPerAddress(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		const budget = 6
		e := start(t, engine, httpapi.Limits{Business: 100000, User: 100000, Token: 100000, Window: time.Minute, Guesses: budget})
		app := e.userApp(t)
		key := e.biz.Key
		for i := range budget + 3 {
			e.register(t, key, map[string]any{"email": fmt.Sprintf("spray%d@example.com", i), "pin_code": 2468})
		}
		// An account this client signed in to before the spraying.
		e.userLogin(t, app, key, fmt.Sprintf("spray%d@example.com", budget+2), "2468").want(t, http.StatusOK)
		// One success earns one more failure on new accounts.
		for i := range budget + 1 {
			e.userLogin(t, app, key, fmt.Sprintf("spray%d@example.com", i), "1111").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
		}
		// Budget spent: a guess on a fresh account, and even the right PIN.
		for _, pin := range []string{"1111", "2468"} {
			r := e.userLogin(t, app, key, fmt.Sprintf("spray%d@example.com", budget+1), pin)
			r.wantOAuthError(t, http.StatusTooManyRequests, "invalid_grant")
			if s, _ := strconv.Atoi(r.Header.Get("Retry-After")); s < 1 || s > 15*60 {
				t.Errorf("Retry-After %q, want 1..900 seconds", r.Header.Get("Retry-After"))
			}
		}
		e.userLogin(t, app, key, fmt.Sprintf("spray%d@example.com", budget+2), "2468").want(t, http.StatusOK)

		// The client's failures are its own: the portal from the same
		// address still signs the owner in.
		w := e.web(t)
		w.get(t, "/business").want(t, http.StatusOK)
		w.post(t, "/business/signin", url.Values{"email": {e.biz.Email}, "password": {e.biz.Password}}).want(t, http.StatusSeeOther)
		// Spraying the portal spends the address's budget on new accounts
		// (the owner's sign-in earned it one more).
		sprayer := e.web(t)
		sprayer.get(t, "/business").want(t, http.StatusOK)
		for i := range budget + 1 {
			sprayer.post(t, "/business/signin", url.Values{"email": {fmt.Sprintf("nobody%d@shop.example", i)}, "password": {"guess-1234"}})
		}
		r := sprayer.post(t, "/business/signin", url.Values{"email": {"nobody-else@shop.example"}, "password": {"guess-1234"}})
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Errorf("portal sign-in on a new account after the budget: %d (Retry-After %q), want 429", r.Status, r.Header.Get("Retry-After"))
		}
		metrics := e.get(t, "/metrics").want(t, http.StatusOK)
		want := fmt.Sprintf(`loyalty_auth_failures_total{business=%q} %d`, e.biz.ID, budget+1)
		if !strings.Contains(string(metrics.Body), want) || !strings.Contains(string(metrics.Body), "loyalty_auth_guess_refusals_total 2") {
			t.Errorf("metrics lack %s and 2 refusals", want)
		}
	})
}

// TestGuessBudgetThroughOneBackend (issue 35 item 2): an app's backend
// forwarding its members' PIN sign-ins from one address, one in ten
// mistyped once, lets every member in.
func TestGuessBudgetThroughOneBackend(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, httpapi.Limits{Business: 100000, User: 100000, Token: 100000, Window: time.Minute, Guesses: 3})
		app := e.userApp(t)
		for i := range 60 {
			name := fmt.Sprintf("backend%d@example.com", i)
			e.register(t, e.biz.Key, map[string]any{"email": name, "pin_code": 2468})
			if i%10 == 3 {
				e.userLogin(t, app, e.biz.Key, name, "1111").wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
			}
			e.userLogin(t, app, e.biz.Key, name, "2468").want(t, http.StatusOK)
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
