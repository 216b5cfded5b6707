package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestConsoleCustomerSearch: the customers page finds customers by the
// start of a name, e-mail or phone (a local number read in the business's
// country), filters by state, joining date and tier level, and pages 25
// at a time, newest first; a cashier may search and read a profile.
func TestConsoleCustomerSearch(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		owner := e.ownerConsole(t)
		cashier := e.staffConsole(t, owner, "cash@cafe.example", "cashier", "cashier-pass-1")
		ann := a.createCustomer(t, map[string]any{"email": "ann.lee@friends.example", "first_name": "Ann", "last_name": "Lee",
			"phone": "+1 604 555 0142"})
		a.createCustomer(t, map[string]any{"email": "bo@friends.example", "first_name": "Bo", "last_name": "Annand"})
		dan := a.createCustomer(t, map[string]any{"email": "dan@friends.example", "first_name": "Dan", "enabled": false})
		for i := range 26 {
			a.createCustomer(t, map[string]any{"email": fmt.Sprintf("guest%02d@crowd.example", i), "first_name": "Guest"})
		}
		search := func(query string) *result {
			t.Helper()
			return cashier.get(t, "/business/customers?"+query).want(t, http.StatusOK)
		}
		// A name's start: the first name or the last name, any case.
		search("q=an").has(t, "2 customers", "Ann Lee", "Bo Annand").hasNot(t, "Dan ")
		search("q=ann+l").has(t, "1 customer", "Ann Lee")
		search("q=ANN.LEE%40").has(t, "1 customer", "ann.lee@friends.example")
		// A phone number's start, international or local.
		search("q=%2B1604555").has(t, "1 customer", "Ann Lee")
		search("q=604+555").has(t, "1 customer", "Ann Lee")
		// State and joining date.
		search("enabled=no").has(t, "1 customer", "Dan").hasNot(t, "Ann Lee")
		search("q=guest&joined_from=2000-01-01&joined_to=2099-12-31").has(t, "26 customers")
		search("q=guest&joined_to=2000-01-01").has(t, "0 customers", "No customer found")
		cashier.get(t, "/business/customers?joined_from=2020-13-01").want(t, http.StatusUnprocessableEntity).has(t, "YYYY-MM-DD")
		// Paging: 25 to a page, newest first, the filters kept.
		first := search("q=guest").has(t, "26 customers", "Page 1 of 2", "guest25@crowd.example").hasNot(t, "guest00@")
		if !strings.Contains(string(first.Body), `href="/business/customers?page=2&amp;q=guest"`) {
			t.Errorf("page 1 has no link to page 2 keeping the query:\n%s", first.Body)
		}
		search("q=guest&page=2").has(t, "Page 2 of 2", "guest00@crowd.example").hasNot(t, "guest25@")

		// A tier filter, once a program is enabled.
		cashier.get(t, "/business/customers?tier=none").want(t, http.StatusUnprocessableEntity).has(t, "no tier program")
		tier := a.do(t, http.MethodPost, "/tiers", map[string]any{"tier_levels": []any{tierLvl("Silver", 0, 0, 100)}}).tierOf(t)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 150,
			"customer": map[string]any{"id": ann.ID}}).want(t, http.StatusOK)
		silver := fmt.Sprint(tier.TierLevels[0].ID)
		search("tier="+silver).has(t, "1 customer", "Ann Lee", "Silver")
		search("tier=none&q=an").has(t, "1 customer", "Bo Annand")

		// The profile, read by a cashier: no manager's forms.
		cashier.get(t, "/business/customers/"+ann.ID).want(t, http.StatusOK).
			has(t, "Ann Lee", `id="points">150<`, "Silver", "Reward").hasNot(t, "Adjust balance").hasNot(t, "/delete")
		cashier.get(t, "/business/customers/"+dan.ID).want(t, http.StatusOK).has(t, "Disabled")
		cashier.get(t, "/business/customers/0123456789abcdef0123456789abcdef").want(t, http.StatusNotFound)
	})
}

// TestConsoleCustomerActions: a manager edits a customer's details
// (the API's validation messages beside the fields), adjusts points with
// a required reason, cancels an entry, issues a coupon, resends the
// welcome message, disables and enables, and deletes after confirming;
// each action is one audited change, and a reload repeats none.
func TestConsoleCustomerActions(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		owner := e.ownerConsole(t)
		m := e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
		a.createCustomer(t, map[string]any{"email": "taken@friends.example"})
		ann := a.createCustomer(t, map[string]any{"email": "ann@friends.example", "first_name": "Ann"})
		offer := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free muffin"})
		pastry := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free pastry", "points": 30})
		base := "/business/customers/" + ann.ID
		back := func(r *result, notice string) {
			t.Helper()
			r.want(t, http.StatusSeeOther)
			if to := r.Header.Get("Location"); to != base+"?notice="+notice {
				t.Errorf("redirected to %q, want the profile with %s", to, notice)
			}
		}
		m.get(t, base).want(t, http.StatusOK).has(t, "Adjust balance", "Free muffin")

		// Edit: the API's rules and messages.
		m.get(t, base+"/edit").want(t, http.StatusOK).has(t, `value="ann@friends.example"`)
		edit := url.Values{"first_name": {"Ann"}, "last_name": {"Lee"}, "email": {"taken@friends.example"}, "phone": {""},
			"birth_date": {"1990-02-30"}, "language": {"en"}, "gender": {""}}
		m.post(t, base+"/edit", edit).want(t, http.StatusUnprocessableEntity).has(t, `id="birth_date-error"`, `value="Lee"`)
		edit.Set("birth_date", "1990-02-03")
		m.post(t, base+"/edit", edit).want(t, http.StatusUnprocessableEntity).has(t, "The email has already been taken.", `id="email-error"`)
		edit.Set("email", "Ann.Lee@Friends.example")
		back(m.post(t, base+"/edit", edit), "customer_saved")
		m.get(t, base+"?notice=customer_saved").want(t, http.StatusOK).has(t, "Ann Lee", "ann.lee@friends.example", "details were saved")

		// Points: the reason is required; the entry carries it.
		m.post(t, base+"/points", url.Values{"points": {"40"}, "reason": {" "}}).want(t, http.StatusUnprocessableEntity).
			has(t, `id="reason-error"`, `value="40"`)
		m.post(t, base+"/points", url.Values{"points": {"-5"}, "reason": {"x"}}).want(t, http.StatusUnprocessableEntity).
			has(t, "points balance is not enough", `id="points-error"`)
		back(m.post(t, base+"/points", url.Values{"points": {"40"}, "reason": {"Broken cup"}}), "points_adjusted")
		page := m.get(t, base).want(t, http.StatusOK).has(t, `id="points">40<`, "Broken cup")
		var entry string
		body := string(page.Body)
		fmt.Sscanf(body[strings.Index(body, "/transactions/")+len("/transactions/"):], "%s", &entry)
		entry = strings.SplitN(entry, "/", 2)[0]

		// Cancel: asks first, then writes the reversing entry, once.
		m.get(t, base+"/transactions/"+entry+"/cancel").want(t, http.StatusOK).has(t, "Cancel transaction "+entry)
		m.post(t, base+"/transactions/"+entry+"/cancel", nil).want(t, http.StatusSeeOther)
		back(m.post(t, base+"/transactions/"+entry+"/cancel", url.Values{"confirm": {"yes"}}), "cancelled")
		m.post(t, base+"/transactions/"+entry+"/cancel", url.Values{"confirm": {"yes"}}).want(t, http.StatusUnprocessableEntity).
			has(t, "already been cancelled")
		m.get(t, base).want(t, http.StatusOK).has(t, `id="points">0<`, "Transaction Canceled - Clerk")

		// A coupon, and the welcome message again.
		back(m.post(t, base+"/coupons", url.Values{"offer": {offer}}), "coupon_issued")
		m.get(t, base).want(t, http.StatusOK).has(t, "Free muffin", "<code>")
		// A coupon that costs points asks first, saying what it takes,
		// and takes nothing until confirmed.
		m.post(t, base+"/points", url.Values{"points": {"50"}, "reason": {"Welcome"}}).want(t, http.StatusSeeOther)
		m.post(t, base+"/coupons", url.Values{"offer": {pastry}}).want(t, http.StatusOK).
			has(t, "Issue “Free pastry” to Ann Lee?", "costs 30 points", "holds 50 points now; 20 after", "Issue and take 30 points",
				`action="`+base+`/coupons?offer=`+pastry+`"`)
		m.get(t, base).want(t, http.StatusOK).has(t, `id="points">50<`)
		back(m.post(t, base+"/coupons?offer="+pastry, url.Values{"confirm": {"yes"}}), "coupon_issued")
		m.get(t, base).want(t, http.StatusOK).has(t, `id="points">20<`, "Free pastry")
		// Given as a gift, it takes no points, and needs a reason.
		gift := url.Values{"offer": {pastry}, "how": {"gift"}, "gift_reason": {" "}}
		m.post(t, base+"/coupons", gift).want(t, http.StatusUnprocessableEntity).has(t, `id="gift_reason-error"`, `value="gift" id="how-gift" checked`)
		gift.Set("gift_reason", "Sorry for the wait")
		back(m.post(t, base+"/coupons", gift), "coupon_gifted")
		m.get(t, base).want(t, http.StatusOK).has(t, `id="points">20<`, "Sorry for the wait")
		mails := e.mailCount(t, "ann.lee@friends.example")
		back(m.post(t, base+"/welcome", nil), "welcome_sent")
		if n := e.mailCount(t, "ann.lee@friends.example"); n != mails+1 {
			t.Errorf("e-mails to Ann after the resend: %d, want %d", n, mails+1)
		}

		// Disable asks first; enable does not.
		m.get(t, base+"/disable").want(t, http.StatusOK).has(t, "Disable Ann Lee?")
		back(m.post(t, base+"/disable", url.Values{"confirm": {"yes"}}), "customer_disabled")
		m.get(t, "/business/customers?enabled=no").want(t, http.StatusOK).has(t, "Ann Lee")
		back(m.post(t, base+"/enable", nil), "customer_enabled")

		// Delete asks first; afterwards the customer is gone from the pages.
		m.get(t, base+"/delete").want(t, http.StatusOK).has(t, "Delete Ann Lee?")
		r := m.post(t, base+"/delete", url.Values{"confirm": {"yes"}}).want(t, http.StatusSeeOther)
		if r.Header.Get("Location") != "/business/customers?notice=customer_deleted" {
			t.Errorf("delete led to %q", r.Header.Get("Location"))
		}
		m.get(t, base).want(t, http.StatusNotFound)
		m.get(t, "/business/customers?q=ann").want(t, http.StatusOK).has(t, "0 customers")

		want := []string{"customer.deleted", "customer.enabled", "customer.disabled", "customer.welcome_resent", "coupon.gifted",
			"coupon.issued", "points.adjusted", "coupon.issued", "transaction.cancelled", "points.adjusted"}
		got := e.auditActions(t, e.biz.ID)
		for i, action := range want {
			if i >= len(got) || got[i] != action+" Ann Lee <ann.lee@friends.example> by mgr@cafe.example" {
				t.Fatalf("audit log %q, want the manager's actions %q, newest first", got, want)
			}
		}
		if len(got) < 11 || got[10] != "customer.updated Ann <ann@friends.example> by mgr@cafe.example" {
			t.Errorf("audit log %q, want the update of Ann's details before", got)
		}
		m.get(t, "/business/audit").want(t, http.StatusOK).has(t, "Adjusted points", "ann@friends.example", "ann.lee@friends.example")
	})
}
