package browser

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

var invitationLink = regexp.MustCompile(`https?://\S+/business/invitation\?token=\S+`)

// signInOwner signs the owner in to the business console on tab b.
func (s *site) signInOwner(b *tab) {
	b.t.Helper()
	b.open(s.url+"/business", "signin")
	b.fill("#email", s.owner.Email, "#password", s.owner.Password)
	b.submit(`main button[type="submit"]`, "business")
}

// status navigates to url and returns the HTTP status of the page.
func (b *tab) status(url string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Navigate(url))
	if err != nil {
		b.t.Fatalf("%s's browser: open %s: %v", b.name, url, err)
	}
	return resp.Status
}

// TestInviteCashier: the owner invites a cashier from the staff page; the
// cashier opens the link of the invitation e-mail (read from the file
// outbox), chooses a password, signs in at /business and lands on the
// counter, finds a customer's balance there, and is refused a page of the
// owner's. On a desktop and on a phone, every page checked for sideways
// scrolling and accessibility.
func TestInviteCashier(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b, err := s.app.DB.Business(ctx, s.owner.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		ann, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
			FirstName: loyalty.Some("Ann"), LastName: loyalty.Some("Lee")})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.app.Services.Transactions.Create(ctx, b, loyalty.TransactionInput{Intent: loyalty.Some("adjust_points_balance"),
			Points: loyalty.Some[int64](345), Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(ann.ID)})}, nil)
		if err != nil {
			t.Fatal(err)
		}
		onScreens(t, func(t *testing.T, sc screen) {
			email := "cash-" + sc.name + "@cafe.example"
			owner := newTabOn(t, "owner", sc)
			s.signInOwner(owner)
			owner.check("business")
			owner.do(chromedp.Click(chromedp.CSS(`nav.console-nav a[href="/business/staff"]`)), waitPage("staff"))
			owner.check("staff")
			owner.fill("#email", email)
			owner.do(chromedp.Click(chromedp.CSS("#role-cashier")))
			owner.do(chromedp.Click(chromedp.CSS("#invite")), chromedp.WaitVisible(chromedp.CSS(".alert-ok")))
			if page := owner.text("main"); !strings.Contains(page, email) || !strings.Contains(page, "Invited") {
				t.Errorf("the staff page does not list the invitation:\n%s", page)
			}

			body, _ := s.mail(t, email, "Join Corner Cafe")
			link := invitationLink.FindString(body)
			if link == "" {
				t.Fatalf("the invitation e-mail has no link to the invitation page:\n%s", body)
			}
			cashier := newTabOn(t, "cashier", sc)
			cashier.open(link, "invitation")
			cashier.check("invitation")
			cashier.fill("#password", "cashier-pass-1", "#password_again", "cashier-pass-1")
			cashier.submit(`main button[type="submit"]`, "signin")
			if got := cashier.text(".alert-ok"); !strings.Contains(got, "Welcome aboard") {
				t.Errorf("after accepting, the sign-in page says %q", got)
			}
			cashier.fill("#email", email, "#password", "cashier-pass-1")
			cashier.submit(`main button[type="submit"]`, "counter")
			cashier.check("counter")
			if nav := cashier.text("nav.console-nav"); strings.Contains(nav, "Staff") || !strings.Contains(strings.ToLower(nav), "cashier") {
				t.Errorf("a cashier's navigation: %q", nav)
			}

			cashier.fill("#q", "Ann@Friends.example")
			cashier.submit(`form.lookup button[type="submit"]`, "customers")
			cashier.check("customers")
			if got := cashier.text(".person"); !strings.Contains(got, "Ann Lee") || !strings.Contains(got, "345") {
				t.Errorf("the look-up shows %q, want Ann Lee with 345 points", got)
			}

			// A manager's page, typed in: 403, with the way back.
			if st := cashier.status(s.url + "/business/audit"); st != http.StatusForbidden {
				t.Errorf("a cashier opening the audit log: %d, want 403", st)
			}
			cashier.do(waitPage("error"))
			cashier.check("forbidden")
			if got := cashier.text("h1"); got != "This page is not for your role" {
				t.Errorf("refusal heading %q", got)
			}

			// The owner reads it all in the audit log.
			owner.do(chromedp.Click(chromedp.CSS(`nav.console-nav a[href="/business/audit"]`)), waitPage("audit"))
			owner.check("audit")
			if got := owner.text("main table"); !strings.Contains(got, "Joined the team") || !strings.Contains(got, email) {
				t.Errorf("the audit log does not show the cashier joining:\n%s", got)
			}
		})
	})
}

// TestPasswordReset: the owner forgot the password: asks for a reset from
// the sign-in page, reads the token in the e-mail (the file outbox),
// chooses a new password and signs in with it; the old one no longer
// works. On a desktop and on a phone.
func TestPasswordReset(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		password := s.owner.Password
		onScreens(t, func(t *testing.T, sc screen) {
			owner := newTabOn(t, "owner", sc)
			owner.open(s.url+"/business", "signin")
			owner.check("signin")
			owner.do(chromedp.Click(chromedp.CSS(`a[href="/business/password/forgot"]`)), waitPage("forgot"))
			owner.check("forgot")
			owner.fill("#email", s.owner.Email)
			owner.do(chromedp.Click(chromedp.CSS(`main button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS(".alert-ok")))

			_, token := s.mail(t, s.owner.Email, "Reset your Loyalty business console password")
			owner.open(s.url+"/business/password/reset", "reset")
			owner.check("reset")
			next := "reset-pass-" + sc.name
			owner.fill("#token", token, "#password", next, "#password_again", next)
			owner.submit(`main button[type="submit"]`, "signin")
			if got := owner.text(".alert-ok"); !strings.Contains(got, "Your password was reset") {
				t.Errorf("after the reset the sign-in page says %q", got)
			}
			owner.fill("#email", s.owner.Email, "#password", password)
			owner.do(chromedp.Click(chromedp.CSS(`main button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS("#form-error")))
			if got := owner.text("#form-error"); !strings.Contains(got, "incorrect") {
				t.Errorf("the old password: %q", got)
			}
			owner.fill("#email", s.owner.Email, "#password", next)
			owner.submit(`main button[type="submit"]`, "business")
			password = next

			owner.do(chromedp.Click(chromedp.CSS(`nav.console-nav a[href="/business/password"]`)), waitPage("password"))
			owner.check("password")
		})
	})
}
