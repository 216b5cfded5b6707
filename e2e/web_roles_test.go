package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// consoleRoute is a page or action of the console and the roles it is
// for. Destructive actions are tried without confirm=yes by the roles
// allowed (the role check passes, nothing happens) and with it by the
// others (403, nothing happens).
type consoleRoute struct {
	method, path string
	form         url.Values
	roles        []string
	ok           int // the status of an allowed request; 0: 200 for GET, 303 for POST
}

func (c consoleRoute) String() string { return c.method + " " + c.path }

// consoleRoutes lists every console page and action, with a business, a
// connected app and a pending staff member to act on.
func consoleRoutes(appID, pendingID, customerID, txID string) []consoleRoute {
	owner := []string{"owner"}
	managers := []string{"owner", "manager"}
	everyone := []string{"owner", "manager", "cashier"}
	yes := url.Values{"confirm": {"yes"}}
	customer := "/business/customers/" + customerID
	return []consoleRoute{
		{"GET", "/business/key", nil, owner, 0},
		{"POST", "/business/key", yes, owner, 0},
		{"GET", "/business/apps/" + appID + "/revoke", nil, owner, 0},
		{"POST", "/business/apps/" + appID + "/revoke", yes, owner, 0},
		{"GET", "/business/staff", nil, owner, 0},
		{"POST", "/business/staff", url.Values{"email": {"new@cafe.example"}, "role": {"cashier"}}, owner, 0},
		{"POST", "/business/staff/" + pendingID + "/role", url.Values{"role": {"cashier"}}, owner, 0},
		{"POST", "/business/staff/" + pendingID + "/invitation", nil, owner, 0},
		{"GET", "/business/staff/" + pendingID + "/remove", nil, owner, 0},
		{"POST", "/business/staff/" + pendingID + "/remove", yes, owner, 0},
		{"GET", "/business/counter", nil, everyone, 0},
		{"GET", "/business/counter?code=ann%40example.com", nil, everyone, http.StatusSeeOther},
		{"GET", "/business/counter/" + customerID + "?amount=5", nil, everyone, 0},
		{"POST", "/business/counter/" + customerID + "/giftcard_sell", url.Values{"amount": {"5"}, "idempotency_key": {"k-1"}}, everyone, 0},
		{"GET", "/business/customers?q=ann%40example.com", nil, everyone, 0},
		{"GET", "/business/password", nil, everyone, 0},
		{"GET", "/business/audit", nil, managers, 0},
		{"GET", "/business/dashboard", nil, managers, 0},
		{"GET", "/business/dashboard?from=2026-01-01&to=2026-12-31&by=month", nil, managers, 0},
		{"GET", "/business/dashboard?from=2026-02-01&to=2026-01-01", nil, managers, http.StatusUnprocessableEntity},
		{"GET", "/business/dashboard?branch=elsewhere", nil, managers, http.StatusUnprocessableEntity},
		{"GET", "/business/profile", nil, managers, 0},
		{"POST", "/business/profile", url.Values{"name": {"Corner Cafe"}, "time_zone": {"UTC"}, "currency": {"USD"}}, managers, 0},
		{"GET", "/business/audit?before=1000", nil, managers, 0},
		{"POST", "/business/password", url.Values{"current_password": {"wrong-password"}}, everyone, http.StatusUnprocessableEntity},
		// The program's setup: managers only.
		{"GET", "/business/program", nil, managers, 0},
		{"GET", "/business/program/rules", nil, managers, 0},
		{"POST", "/business/program/rules", url.Values{"reward_ratio": {"1"}, "reward_milestone_amount": {"1"}}, managers, 0},
		{"GET", "/business/program/offers", nil, managers, 0},
		{"GET", "/business/program/offers/new", nil, managers, 0},
		{"POST", "/business/program/branches", url.Values{"name": {"Harbour"}}, managers, 0},
		{"GET", "/business/customers/export?q=ann", nil, managers, 0},
		{"GET", "/business/ledger/export", nil, managers, 0},
		{"GET", "/business/imports", nil, managers, 0},
		{"POST", "/business/imports", url.Values{"type": {"customers"}}, managers, http.StatusBadRequest}, // not multipart
		{"GET", "/business/imports/999999", nil, managers, http.StatusNotFound},
		{"POST", "/business/imports/999999/mapping", url.Values{"columns": {"1"}, "column.0": {"email"}}, managers, http.StatusNotFound},
		{"POST", "/business/imports/999999/start", nil, managers, http.StatusNotFound},
		{"GET", "/business/imports/999999/errors", nil, managers, http.StatusNotFound},
		// The customer pages: cashiers read, managers act.
		{"GET", "/business/customers?q=ann&enabled=yes", nil, everyone, 0},
		{"GET", customer, nil, everyone, 0},
		{"GET", customer + "/edit", nil, managers, 0},
		{"POST", customer + "/edit", url.Values{"email": {"ann@example.com"}, "first_name": {"Ann"}}, managers, 0},
		{"POST", customer + "/enable", nil, managers, 0},
		{"GET", customer + "/disable", nil, managers, 0},
		{"POST", customer + "/disable", yes, managers, 0},
		{"POST", customer + "/points", url.Values{"points": {"5"}, "reason": {"Goodwill"}}, managers, 0},
		{"POST", customer + "/coupons", url.Values{"offer": {"999999"}}, managers, http.StatusNotFound},
		{"POST", customer + "/welcome", nil, managers, 0},
		{"GET", customer + "/transactions/" + txID + "/cancel", nil, managers, 0},
		{"POST", customer + "/transactions/" + txID + "/cancel", yes, managers, 0},
		{"GET", customer + "/delete", nil, managers, 0},
		{"POST", customer + "/delete", yes, managers, 0},
	}
}

// TestConsoleRoles: each console page and action is allowed to the roles
// it is for and 403 to the others, whatever URL they type; a refused
// action changes nothing and writes nothing to the audit log.
func TestConsoleRoles(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		owner := e.ownerConsole(t)
		owner.approve(t, e.biz, authorizeQuery(app, callback))
		var appID string
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT id FROM apps WHERE client_id = $1`, app.ID).Scan(&appID)
		clients := map[string]*webClient{
			"owner":   owner,
			"manager": e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1"),
			"cashier": e.staffConsole(t, owner, "cash@cafe.example", "cashier", "cashier-pass-1"),
		}
		e.invite(t, owner, "pending@cafe.example", "cashier")
		pendingID := e.staffID(t, "pending@cafe.example")
		api := e.owner(t, e.biz)
		ann := api.createCustomer(t, map[string]any{"email": "ann@example.com", "first_name": "Ann"})
		var entry struct{ Data struct{ ID int64 } }
		api.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "adjust_points_balance", "points": 10,
			"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK).decode(t, &entry)
		before := len(e.auditActions(t, e.biz.ID))

		for _, role := range []string{"cashier", "manager", "owner"} {
			w := clients[role]
			w.get(t, "/business/counter").want(t, http.StatusOK) // a fresh CSRF token
			for _, route := range consoleRoutes(appID, pendingID, ann.ID, fmt.Sprint(entry.Data.ID)) {
				allowed := slices.Contains(route.roles, role)
				form := route.form
				if allowed && form.Get("confirm") == "yes" {
					form = nil // the role passes; the action waits for confirmation
				}
				var r *result
				if route.method == "GET" {
					r = w.get(t, route.path)
				} else {
					r = w.post(t, route.path, form)
				}
				switch {
				case !allowed && r.Status != http.StatusForbidden:
					t.Errorf("%s as %s: %d, want 403", route, role, r.Status)
				case !allowed:
					r.has(t, "This page is not for your role")
				case route.ok != 0:
					if r.Status != route.ok {
						t.Errorf("%s as %s: %d, want %d", route, role, r.Status, route.ok)
					}
				case route.method == "GET" && r.Status != http.StatusOK:
					t.Errorf("%s as %s: %d, want 200", route, role, r.Status)
				case route.method == "POST" && r.Status != http.StatusSeeOther:
					t.Errorf("%s as %s: %d, want 303", route, role, r.Status)
				}
			}
		}
		// What was refused did nothing: the key, the app, the pending
		// member and the customer are as they were, and the cashier's
		// refused actions are not logged.
		owner.get(t, "/business").want(t, http.StatusOK).has(t, e.biz.Key, "Till Sync")
		e.staffID(t, "pending@cafe.example")
		var invited int
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM staff WHERE email = 'new@cafe.example'`).Scan(&invited)
		if invited != 1 {
			t.Errorf("new@cafe.example invited %d times, want once (by the owner)", invited)
		}
		if c, err := e.app.DB.Customer(context.Background(), e.biz.ID, ann.ID); err != nil || c.Balance.Points != 20 || c.Balance.Giftcard != 500 || !c.Enabled {
			t.Errorf("Ann after the routes: %+v, %v; want kept, enabled, with 10 + 5 points from the manager and from the owner, "+
				"and the 5.00 of gift-card credit the cashier sold (the others' posts of the same form repeat it)", c, err)
		}
		for _, a := range e.auditActions(t, e.biz.ID)[:len(e.auditActions(t, e.biz.ID))-before] {
			if strings.HasSuffix(a, " by cash@cafe.example") && !strings.HasPrefix(a, "counter.") {
				t.Errorf("audit entry %q of a refused action", a)
			}
		}
	})
}
