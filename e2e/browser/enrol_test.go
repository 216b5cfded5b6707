package browser

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// loads counts the pages the tab loads from now on (its main frame's
// navigations, a redirect after a post counting once).
func (b *tab) loads() func() int64 {
	var n atomic.Int64
	err := chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*page.EventFrameNavigated); ok && e.Frame.ParentID == "" {
			n.Add(1)
		}
	})
	if err != nil {
		b.t.Fatalf("%s's browser: listen: %v", b.name, err)
	}
	return n.Load
}

// TestCounterEnrol: a cashier types a walk-in's e-mail at the counter,
// finds nobody, adds them with the form prefilled with the e-mail, lands
// on their counter page and records their first sale, within four page
// loads of the counter; a form without e-mail or phone is refused beside
// the fields; an e-mail already a customer's leads to that customer; a
// name lists the customers it starts, to pick from, and a name nobody has
// says how to go on; the customer list's Add customer is a cashier's too. On a desktop and a phone, every page checked for
// sideways scrolling and accessibility.
func TestCounterEnrol(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		s.pointPerUnit(t, b)
		for _, c := range [][3]string{{"Ann", "Lee", "ann@friends.example"}, {"Anna", "Berg", "anna@friends.example"}, {"Bo", "Wu", "bo@friends.example"}} {
			if _, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{FirstName: loyalty.Some(c[0]),
				LastName: loyalty.Some(c[1]), Email: loyalty.Some(c[2])}); err != nil {
				t.Fatal(err)
			}
		}
		owner := newTab(t, "owner")
		s.signInOwner(owner)
		s.inviteStaff(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")

		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			c := newTabOn(t, "cashier", sc)
			c.open(s.url+"/business", "signin")
			c.fill("#email", "till@cafe.example", "#password", "cashier-pass-1")
			c.submit(`main button[type="submit"]`, "counter")
			c.check("counter")

			// The walk-in: from the counter to their first sale.
			loads := c.loads()
			walkIn := "walk-in-" + sc.name + "@friends.example"
			c.do(chromedp.SendKeys(chromedp.CSS("#code"), walkIn+"\r", poll), chromedp.WaitVisible(chromedp.CSS("#nobody"), poll))
			c.check("counter-nobody")
			if got := c.text("#nobody"); !strings.Contains(got, "add them as a new customer") {
				t.Errorf("an unknown e-mail says %q", got)
			}
			if got := c.evalString(`document.querySelector("#email").value`); got != walkIn {
				t.Errorf("the new customer's e-mail is prefilled with %q, want %q", got, walkIn)
			}
			c.fill("#first_name", "Walk", "#last_name", "In")
			c.submitTo("#enrol", "counter_customer", "notice=customer_enrolled")
			c.check("counter-enrolled")
			if got := c.text("h1"); got != "Walk In" {
				t.Errorf("after enrolling, the counter serves %q", got)
			}
			if !c.eval(`document.activeElement === document.querySelector("#sale-amount")`) {
				t.Error("after enrolling, the cursor is not in the sale's amount")
			}
			if got := c.text("#next-customer"); got != "Next customer" {
				t.Errorf("the link back to the search says %q", got)
			}
			c.fill("#sale-amount", "12.50")
			c.do(chromedp.Click(chromedp.CSS("#preview-sale"), poll), chromedp.WaitVisible(chromedp.CSS("#preview"), poll))
			c.submitTo("#confirm-sale", "counter_customer", "action=sale")
			if got := c.text("#done"); !strings.Contains(got, "+12 points") {
				t.Errorf("after the first sale the page says %q", got)
			}
			if n := loads(); n > 4 {
				t.Errorf("enrolling a walk-in and recording their first sale took %d page loads from the counter, want 4 at most", n)
			} else {
				t.Logf("enrol a walk-in and record their first sale: %d page loads from the counter (%s)", n, sc.name)
			}

			// Neither e-mail nor phone: refused beside the fields.
			c.open(s.url+"/business/counter?code=Zed+Unknown", "counter")
			if got := c.evalString(`document.querySelector("#first_name").value + "|" + document.querySelector("#last_name").value`); got != "Zed|Unknown" {
				t.Errorf("a name nobody has prefills the form with %q", got)
			}
			if got := c.text("#nobody"); !strings.Contains(got, "Try their phone number or e-mail address") {
				t.Errorf("a name nobody has says %q", got)
			}
			c.submit("#enrol", "counter")
			if got := c.text("#email-error"); got == "" {
				t.Error("a new customer without e-mail or phone: no message beside the e-mail")
			}
			if got := c.text("#phone-error"); got == "" {
				t.Error("a new customer without e-mail or phone: no message beside the phone")
			}
			c.check("counter-enrol-refused")

			// An e-mail a customer has already: that customer is served.
			c.open(s.url+"/business/counter", "counter")
			c.do(chromedp.Click(chromedp.CSS("#enrol-fold summary"), poll))
			c.fill("#first_name", "Annie", "#email", "ANN@friends.example")
			c.submitTo("#enrol", "counter_customer", "notice=customer_existing")
			if got := c.text("h1"); got != "Ann Lee" {
				t.Errorf("enrolling Ann's e-mail again serves %q, want Ann Lee", got)
			}

			// By name: a short list to pick from, even of one.
			c.do(chromedp.Click(chromedp.CSS("#next-customer"), poll), waitPage("counter"))
			c.do(chromedp.SendKeys(chromedp.CSS("#code"), "an\r", poll), chromedp.WaitVisible(chromedp.CSS("#found"), poll))
			c.check("counter-names")
			if got := c.text("#found"); !strings.Contains(got, "Ann Lee") || !strings.Contains(got, "Anna Berg") || strings.Contains(got, "Bo Wu") {
				t.Errorf("searching %q lists:\n%s", "an", got)
			}
			if st := c.status(s.url + "/business/customers/new"); st != 200 {
				t.Errorf("a cashier opening the customer list's Add customer: %d, want 200", st)
			}
			c.open(s.url+"/business/counter?code=bo", "counter")
			c.do(chromedp.Click(chromedp.CSS("#found a.person-link"), poll), waitPage("counter_customer"))
			if got := c.text("h1"); got != "Bo Wu" {
				t.Errorf("picking Bo from the list serves %q", got)
			}
		})
	})
}

// TestAddCustomer: the customer list's Add customer opens the new
// customer's form; a form with neither e-mail nor phone is refused beside
// the fields; a complete one shows the new customer's page, and the
// audit log names who added whom. On a desktop and a phone, every page
// checked.
func TestAddCustomer(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			owner := newTabOn(t, "owner", sc)
			s.signInOwner(owner)
			owner.open(s.url+"/business/customers", "customers")
			owner.check("customers")
			owner.do(chromedp.Click(chromedp.CSS("#add-customer"), poll), waitPage("customer_new"))
			owner.check("customer_new")
			owner.fill("#first_name", "Cy")
			owner.submit("#add", "customer_new")
			if got := owner.text("#phone-error"); got == "" {
				t.Error("a new customer without e-mail or phone: no message beside the phone")
			}
			owner.check("customer_new-refused")
			owner.fill("#last_name", "Park", "#phone", "+1 604 555 01"+map[string]string{"desktop": "10", "phone": "11"}[sc.name], "#birth_date", "1990-04-02")
			owner.submitTo("#add", "customer", "notice=customer_added")
			owner.check("customer-added")
			if got := owner.text("h1"); !strings.Contains(got, "Cy Park") {
				t.Errorf("after adding, the page shows %q", got)
			}
			owner.open(s.url+"/business/audit", "audit")
			if got := owner.text("main"); !strings.Contains(got, "Added a customer") || !strings.Contains(got, "Cy Park") {
				t.Errorf("the audit log does not show the new customer:\n%s", got)
			}
		})
	})
}
