package e2e

import (
	"context"
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
func consoleRoutes(appID, pendingID string) []consoleRoute {
	owner := []string{"owner"}
	managers := []string{"owner", "manager"}
	everyone := []string{"owner", "manager", "cashier"}
	yes := url.Values{"confirm": {"yes"}}
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
		{"GET", "/business/customers?q=ann%40example.com", nil, everyone, 0},
		{"GET", "/business/password", nil, everyone, 0},
		{"GET", "/business/audit", nil, managers, 0},
		{"GET", "/business/profile", nil, managers, 0},
		{"POST", "/business/profile", url.Values{"name": {"Corner Cafe"}, "time_zone": {"UTC"}}, managers, 0},
		{"GET", "/business/audit?before=1000", nil, managers, 0},
		{"POST", "/business/password", url.Values{"current_password": {"wrong-password"}}, everyone, http.StatusUnprocessableEntity},
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
		before := len(e.auditActions(t, e.biz.ID))

		for _, role := range []string{"cashier", "manager", "owner"} {
			w := clients[role]
			w.get(t, "/business/counter").want(t, http.StatusOK) // a fresh CSRF token
			for _, route := range consoleRoutes(appID, pendingID) {
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
		// What was refused did nothing: the key, the app and the pending
		// member are as they were, and only the owner's actions are logged.
		owner.get(t, "/business").want(t, http.StatusOK).has(t, e.biz.Key, "Till Sync")
		e.staffID(t, "pending@cafe.example")
		var invited int
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM staff WHERE email = 'new@cafe.example'`).Scan(&invited)
		if invited != 1 {
			t.Errorf("new@cafe.example invited %d times, want once (by the owner)", invited)
		}
		for _, a := range e.auditActions(t, e.biz.ID)[:len(e.auditActions(t, e.biz.ID))-before] {
			if !strings.HasSuffix(a, " by "+e.biz.Email) {
				t.Errorf("audit entry %q, want only the owner's", a)
			}
		}
	})
}
