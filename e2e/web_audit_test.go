package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestAuditLogReadable: what a business's app changes through the API is
// in the console's audit log beside what its staff do, with the app's
// name as the actor; actions read as words, an offer named by id is
// written with its title, an object changed without its name in the body
// is named beside its id (a product by its title, a tier program by its
// first level), a cancelled entry by its customer as the console names
// it, and the log narrows to one person or app, one action and a range
// of dates, on the server and in pages.
func TestAuditLogReadable(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		api := e.owner(t, e.biz)
		owner := e.ownerConsole(t)

		// The app's writes: a customer, an offer changed and a webhook
		// removed, a ledger entry cancelled. The sale itself is the ledger's
		// record, not the log's.
		ann := api.createCustomer(t, map[string]any{"email": "ann@friends.example", "first_name": "Ann", "last_name": "Lee"})
		pastry := api.catOffer(t, map[string]any{"type_id": 8, "title": "Free pastry"})
		api.do(t, http.MethodPut, "/offers/"+pastry, map[string]any{"type_id": 8, "title": "Free pastry", "description": "Any pastry"}).
			want(t, http.StatusOK)
		// A deletion names what it deleted, read before it went.
		muffin := api.catOffer(t, map[string]any{"type_id": 8, "title": "Old muffin"})
		api.do(t, http.MethodDelete, "/offers/"+muffin, nil).want(t, http.StatusNoContent)
		sale := api.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 12.50,
			"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		api.do(t, http.MethodDelete, fmt.Sprintf("/transactions/%v", sale["id"]), nil).want(t, http.StatusNoContent)
		api.do(t, http.MethodPut, "/customers/"+ann.ID, map[string]any{"language": "fr"}).want(t, http.StatusOK)
		// Changes whose bodies carry no name: the objects' names beside
		// their ids.
		latte := fmt.Sprint(api.catData(t, http.MethodPost, "/products", map[string]any{"title": "Latte", "product_sku": "LT-01",
			"product_actual_price": 4})["id"])
		api.do(t, http.MethodPut, "/products/"+latte, map[string]any{"product_actual_price": 4.5}).want(t, http.StatusOK)
		tiers := api.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Silver", 100, 0, 0), tierLvl("Gold", 500, 0, 0)}}).tierOf(t)
		api.do(t, http.MethodPut, tierPath(tiers.ID), map[string]any{"reset_type": 2, "reset_period_month": 6}).want(t, http.StatusOK)
		// A refused write is no entry.
		api.do(t, http.MethodDelete, "/offers/999999", nil).want(t, http.StatusNotFound)

		// The console's: a coupon of the offer issued to Ann.
		owner.post(t, "/business/customers/"+ann.ID+"/coupons", url.Values{"offer": {pastry}}).want(t, http.StatusSeeOther)

		got := e.auditActions(t, e.biz.ID)
		want := []string{"coupon.issued Ann Lee <ann@friends.example> by " + e.biz.Email,
			fmt.Sprintf("program.updated Tier program: Silver (#%d) by POS", tiers.ID), "program.created Tier program: Silver by POS",
			"program.updated Product: Latte (#" + latte + ") by POS", "program.created Product: Latte by POS",
			"customer.updated Ann Lee <ann@friends.example> by POS", "transaction.cancelled Ann Lee <ann@friends.example> by POS",
			"program.deleted Offer: Old muffin by POS", "program.created Offer: Old muffin by POS",
			"program.updated Offer: Free pastry by POS", "program.created Offer: Free pastry by POS",
			"customer.created Ann Lee <ann@friends.example> by POS"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("audit log\n%q\nwant\n%q", got, want)
		}

		page := owner.get(t, "/business/audit").want(t, http.StatusOK)
		page.has(t, "POS", "App, through the API", "Added a customer", "Changed the program", "Cancelled a transaction",
			"Issued a coupon", "Free pastry (#"+pastry+")", "Language", "<ins>fr</ins>", "Product: Latte (#"+latte+")",
			fmt.Sprintf("Tier program: Silver (#%d)", tiers.ID), fmt.Sprintf("#%v", sale["id"]))
		for _, raw := range []string{"coupon.issued", "customer.created", "program.updated", ">offer<", "(none)"} {
			if body := string(page.Body); strings.Contains(body[strings.Index(body, `id="log-title"`):], raw) {
				t.Errorf("the audit page shows %q", raw)
			}
		}

		// Filters: the app alone, one action, a range of dates.
		who := regexp.MustCompile(`<option value="(app:[^"]+)">POS \(app\)</option>`).FindSubmatch(page.Body)
		if who == nil {
			t.Fatalf("no app among the people to filter by: %s", page.Body)
		}
		rows := func(r *result) []string {
			var out []string
			for _, m := range auditRow.FindAllSubmatch(r.Body, -1) {
				out = append(out, string(m[1]))
			}
			return out
		}
		byApp := owner.get(t, "/business/audit?"+url.Values{"who": {string(who[1])}}.Encode()).want(t, http.StatusOK)
		if got := rows(byApp); len(got) != 11 || slices.Contains(got, "Issued a coupon") {
			t.Errorf("the app's entries: %q", got)
		}
		byApp.has(t, `value="`+string(who[1])+`" selected`, "Clear")
		cancels := owner.get(t, "/business/audit?action=transaction.cancelled").want(t, http.StatusOK)
		if got := rows(cancels); fmt.Sprint(got) != "[Cancelled a transaction]" {
			t.Errorf("cancellations: %q", got)
		}
		today := time.Now().UTC()
		inRange := owner.get(t, "/business/audit?from="+today.AddDate(0, 0, -1).Format(time.DateOnly)+"&to="+today.AddDate(0, 0, 1).Format(time.DateOnly))
		if got := rows(inRange.want(t, http.StatusOK)); len(got) != 12 {
			t.Errorf("entries of these days: %q", got)
		}
		before := owner.get(t, "/business/audit?to="+today.AddDate(0, 0, -2).Format(time.DateOnly)).want(t, http.StatusOK)
		before.has(t, "No entries match")
		owner.get(t, "/business/audit?from=2026-05-02&to=2026-05-01").want(t, http.StatusOK).has(t, "The end date must be on or after the start date.")
	})
}
