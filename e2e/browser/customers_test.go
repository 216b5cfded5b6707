package browser

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestCustomerPages: the owner searches customers by a name's start,
// opens a profile, adjusts the points with a reason (refused for a
// fraction of a point, the message beside the field) and sees the new balance and the
// entry in the history; a cashier finds the same customer but is refused
// the managers' actions when typing their URL. On a desktop and on a
// phone, every page checked for sideways scrolling and accessibility.
func TestCustomerPages(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		ann, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
			FirstName: loyalty.Some("Ann"), LastName: loyalty.Some("Lee"), Phone: loyalty.Some("+16045550142")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("bo@friends.example"),
			FirstName: loyalty.Some("Bo")}); err != nil {
			t.Fatal(err)
		}
		cashierEmail, invited := "till@cafe.example", false
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			owner := newTabOn(t, "owner", sc)
			s.signInOwner(owner)
			owner.follow("/business/customers", "customers")
			owner.check("customers")
			owner.fill("#q", "an")
			owner.submitTo(`form.search button[type="submit"]`, "customers", "q=an")
			if got := owner.text("#results-title"); got != "1 customer" {
				t.Errorf("searching %q found %q", "an", got)
			}
			// The export link downloads what the search found, as CSV (with
			// the browser's session: the page's own policy lets no script
			// fetch it).
			csv := owner.download(owner.evalString(`document.querySelector("#export-customers").href`))
			if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 2 || !strings.Contains(lines[1], "ann@friends.example") {
				t.Errorf("the export of the search for %q:\n%s", "an", csv)
			}
			owner.do(chromedp.Click(chromedp.CSS(`a.person-link`), poll), waitPage("customer"))
			owner.check("customer")
			before := owner.text("#points")

			owner.fill("#points-change", "25.5", "#reason", "Oops")
			owner.submit("#adjust", "customer")
			if got := owner.text("#points-error"); !strings.Contains(got, "whole number") {
				t.Errorf("an adjustment of 25.5 points says %q", got)
			}
			owner.check("customer-refused")
			owner.fill("#points-change", "25", "#reason", "Welcome gift "+sc.name)
			owner.submit("#adjust", "customer")
			if got := owner.text(".alert-ok"); !strings.Contains(got, "adjusted") {
				t.Errorf("after adjusting, the notice says %q", got)
			}
			if got, want := owner.text("#points"), addPoints(before, 25); got != want {
				t.Errorf("balance %s after adding 25 to %s, want %s", got, before, want)
			}
			if got := owner.text("table.ledger"); !strings.Contains(got, "Welcome gift "+sc.name) {
				t.Errorf("the history does not show the adjustment:\n%s", got)
			}
			owner.do(chromedp.Click(chromedp.CSS(`a[href$="/edit"]`), poll), waitPage("customer_edit"))
			owner.check("customer_edit")

			// A cashier reads the profile; the managers' actions are refused.
			if !invited {
				s.inviteStaff(t, owner, cashierEmail, "cashier", "cashier-pass-1")
				invited = true
			}
			cashier := newTabOn(t, "cashier", sc)
			cashier.open(s.url+"/business", "signin")
			cashier.fill("#email", cashierEmail, "#password", "cashier-pass-1")
			cashier.submit(`main button[type="submit"]`, "counter")
			cashier.open(s.url+"/business/customers?q=ann%40", "customers")
			cashier.do(chromedp.Click(chromedp.CSS(`a.person-link`), poll), waitPage("customer"))
			if cashier.eval(`document.querySelector("#adjust") !== null || document.querySelector('a[href$="/delete"]') !== null`) {
				t.Error("a cashier's profile page offers the managers' actions")
			}
			for _, path := range []string{"/edit", "/delete", "/disable"} {
				if st := cashier.status(s.url + "/business/customers/" + ann.ID + path); st != http.StatusForbidden {
					t.Errorf("a cashier opening %s: %d, want 403", path, st)
				}
			}
			cashier.do(waitPage("error"))
			cashier.check("customer-forbidden")
		})
	})
}

// addPoints adds n to a balance as the page shows it.
func addPoints(shown string, n int64) string {
	v, _ := strconv.ParseInt(shown, 10, 64)
	return strconv.FormatInt(v+n, 10)
}

// inviteStaff has the owner (signed in on b) invite email as role; the
// member accepts with password in a browser of their own.
func (s *site) inviteStaff(t *testing.T, b *tab, email, role, password string) {
	t.Helper()
	b.open(s.url+"/business/staff", "staff")
	b.fill("#email", email)
	b.do(chromedp.Click(chromedp.CSS("#role-"+role), poll))
	b.do(chromedp.Click(chromedp.CSS("#invite"), poll), chromedp.WaitVisible(chromedp.CSS(".alert-ok"), poll))
	body, _ := s.mail(t, email, "Join ")
	link := invitationLink.FindString(body)
	if link == "" {
		t.Fatalf("the invitation e-mail has no link:\n%s", body)
	}
	m := newTab(t, "new-"+role)
	m.open(link, "invitation")
	m.fill("#password", password, "#password_again", password)
	m.submit(`main button[type="submit"]`, "signin")
}

// download gets url with the tab's cookies, as a download would.
func (b *tab) download(url string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	jar, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (*network.GetCookiesResult, error) {
		res, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
		return &res, err
	})
	if err != nil {
		b.t.Fatalf("%s's browser: cookies: %v", b.name, err)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for _, c := range jar.Cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatalf("download %s: %v", url, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		b.t.Fatalf("download %s: %d %s", url, res.StatusCode, body)
	}
	return string(body)
}
