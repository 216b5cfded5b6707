package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var auditRow = regexp.MustCompile(`<td data-label="What">([^<]+)</td>`)

// TestAuditLogPage: the owner's and managers' page of the audit log shows
// every console action, newest first, 50 to a page; rotating the key and
// revoking an app are in it, written with the change.
func TestAuditLogPage(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.codeApp(t, callback)
		owner := e.ownerConsole(t)
		owner.approve(t, e.biz, authorizeQuery(app, callback))
		var appID string
		e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT id FROM apps WHERE client_id = $1`, app.ID).Scan(&appID)
		owner.get(t, "/business/audit").want(t, http.StatusOK).has(t, "Nothing yet")

		owner.get(t, "/business/key")
		owner.post(t, "/business/key", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		owner.post(t, "/business/apps/"+appID+"/revoke", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		manager := e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
		e.invite(t, owner, "cash@cafe.example", "cashier")
		id := e.staffID(t, "cash@cafe.example")
		// 50 role changes: the log has 55 entries now, two pages.
		for i := range 50 {
			role := []string{"manager", "cashier"}[i%2]
			owner.post(t, "/business/staff/"+id+"/role", url.Values{"role": {role}}).want(t, http.StatusSeeOther)
		}
		got := e.auditActions(t, e.biz.ID)
		if len(got) != 55 || got[54] != "key.rotated Application Key by "+e.biz.Email || !strings.HasPrefix(got[53], "app.revoked Till Sync ") {
			t.Fatalf("audit log has %d entries, oldest %q", len(got), got[len(got)-2:])
		}

		first := manager.get(t, "/business/audit").want(t, http.StatusOK)
		rows := auditRow.FindAllSubmatch(first.Body, -1)
		if len(rows) != 50 || string(rows[0][1]) != "Changed a role" {
			t.Fatalf("first page: %d rows, first %q; want 50, newest first", len(rows), rows[0][1])
		}
		first.has(t, "cash@cafe.example", "cashier", "manager", "Older entries")
		older := regexp.MustCompile(`href="(/business/audit\?before=\d+)" rel="next"`).FindSubmatch(first.Body)
		if older == nil {
			t.Fatal("no link to the older entries")
		}
		second := manager.get(t, string(older[1])).want(t, http.StatusOK)
		rows = auditRow.FindAllSubmatch(second.Body, -1)
		var what []string
		for _, r := range rows {
			what = append(what, string(r[1]))
		}
		want := []string{"Invited a team member", "Joined the team", "Invited a team member",
			"Revoked an app&#39;s access", "Rotated the Application Key"}
		if fmt.Sprint(what) != fmt.Sprint(want) {
			t.Errorf("second page %q, want %q", what, want)
		}
		second.has(t, "Newest entries").hasNot(t, "Older entries")
		if strings.Contains(string(second.Body), `rel="next"`) {
			t.Error("the last page links to an older one")
		}
	})
}
