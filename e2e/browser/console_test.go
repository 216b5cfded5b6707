package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
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
	b.submit(`main button[type="submit"]`, "dashboard")
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
// counter, finds a customer's balance there by e-mail, and is refused a page of the
// owner's. On a desktop and on a phone, every page checked for sideways
// scrolling and accessibility.
func TestInviteCashier(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
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
		gift, _, err := s.app.Services.Transactions.Create(ctx, b, loyalty.TransactionInput{Intent: loyalty.Some("adjust_points_balance"),
			Points: loyalty.Some[int64](5), Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(ann.ID)})}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The business's till app changes a customer through the API: the
		// log names it beside the staff.
		till := loyalty.AppActor(b.ID, loyalty.NewID(), "Till Sync")
		err = loyalty.Audited(till, loyalty.AuditCustomerUpdated, "Ann Lee <ann@friends.example>", nil, nil, func(r *loyalty.AuditRecord) error {
			_, err := s.app.Services.AuditedBy(r).Customers.Update(ctx, b, ann.ID, loyalty.CustomerInput{Language: loyalty.Some("fr")})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// It cancels an entry, asked by the entry's id alone (DELETE
		// /transactions/{id}): the log names the entry's customer.
		err = loyalty.Audited(till, loyalty.AuditTransactionCancel, fmt.Sprintf("Transaction #%d", gift.ID), nil, nil, func(r *loyalty.AuditRecord) error {
			_, err := s.app.Services.AuditedBy(r).Transactions.Cancel(ctx, b, gift.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			email := "cash-" + sc.name + "@cafe.example"
			owner := newTabOn(t, "owner", sc)
			owner.open(s.url+"/", "home")
			owner.check("home")
			s.signInOwner(owner)
			owner.follow("/business", "business")
			owner.check("business")
			// Rotating the key asks first, on a page of its own.
			owner.do(chromedp.Click(chromedp.CSS(`main a[href="/business/key"]`), poll), waitPage("confirm"))
			owner.check("confirm")
			owner.do(chromedp.Click(chromedp.CSS(`main a.btn-secondary`), poll), waitPage("business"))
			owner.follow("/business/staff", "staff")
			owner.check("staff")
			owner.fill("#email", email)
			owner.do(chromedp.Click(chromedp.CSS("#role-cashier"), poll))
			owner.do(chromedp.Click(chromedp.CSS("#invite"), poll), chromedp.WaitVisible(chromedp.CSS(".alert-ok"), poll))
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

			cashier.fill("#code", "Ann@Friends.example")
			cashier.submit(`form.lookup button[type="submit"]`, "counter_customer")
			cashier.check("counter_customer")
			if got := cashier.text("h1") + " " + cashier.text("#points"); got != "Ann Lee 345" {
				t.Errorf("the counter shows %q, want Ann Lee with 345 points", got)
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
			owner.follow("/business/audit", "audit")
			owner.check("audit")
			if got := owner.text("main table"); !strings.Contains(got, "Joined the team") || !strings.Contains(got, email) ||
				!strings.Contains(got, "Till Sync") {
				t.Errorf("the audit log does not show the cashier joining and the app's change:\n%s", got)
			}
			// Narrowed to the app: its change alone, in words.
			owner.fill("#audit-who", "app:"+till.ID)
			owner.submit("#audit-filter", "audit")
			owner.check("audit-filtered")
			if got := owner.text("main table"); !strings.Contains(got, "Edited a customer's details") || strings.Contains(got, "Joined the team") ||
				!strings.Contains(got, "Language") {
				t.Errorf("the log narrowed to the app:\n%s", got)
			}
			if got := owner.text("main table tbody tr"); !strings.Contains(got, "Cancelled a transaction") || !strings.Contains(got, "Ann Lee") ||
				!strings.Contains(got, fmt.Sprintf("#%d", gift.ID)) {
				t.Errorf("the app's cancellation in the log:\n%s", got)
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
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			owner := newTabOn(t, "owner", sc)
			owner.open(s.url+"/business", "signin")
			owner.check("signin")
			owner.do(chromedp.Click(chromedp.CSS(`main a[href="/business/password/forgot"]`), poll), waitPage("forgot"))
			owner.check("forgot")
			owner.fill("#email", s.owner.Email)
			owner.do(chromedp.Click(chromedp.CSS(`main button[type="submit"]`), poll), chromedp.WaitVisible(chromedp.CSS(".alert-ok"), poll))

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
			owner.do(chromedp.Click(chromedp.CSS(`main button[type="submit"]`), poll), chromedp.WaitVisible(chromedp.CSS("#form-error"), poll))
			if got := owner.text("#form-error"); !strings.Contains(got, "incorrect") {
				t.Errorf("the old password: %q", got)
			}
			owner.fill("#email", s.owner.Email, "#password", next)
			owner.submit(`main button[type="submit"]`, "dashboard")
			password = next

			owner.follow("/business/password", "password")
			owner.check("password")
		})
	})
}

// TestProfileOnReferralPage: the owner changes the business's name, about
// text, currency and brand colour in the console; a friend opening a
// referral link sees them: the new name, the text, the amount in the
// currency and the button in the brand's colour. On a desktop and on a
// phone.
func TestProfileOnReferralPage(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		prog, err := (&loyalty.ReferralProgramService{Store: s.app.DB}).Create(ctx, b, loyalty.ReferralProgramInput{
			CondMinAmount: loyalty.Some[loyalty.Money](1000), RefereeEarns: loyalty.Some[int64](30),
			RefererEarns: loyalty.Some[int64](50), ExpiresIn: loyalty.Some[int64](30)})
		if err != nil {
			t.Fatal(err)
		}
		dana, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("dana@friends.example"),
			FirstName: loyalty.Some("Dana")})
		if err != nil {
			t.Fatal(err)
		}
		colours := map[string]string{"desktop": "#0f766e", "phone": "#7c2d12"}
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			name := "Harbour Coffee " + sc.name
			owner := newTabOn(t, "owner", sc)
			s.signInOwner(owner)
			owner.follow("/business/profile", "profile")
			owner.check("profile")
			owner.fill("#name", name, "#about", "Roasted by the sea since 1999.", "#currency", "EUR",
				"#time_zone", "Europe/Lisbon", "#brand_color", colours[sc.name])
			// The logo is uploaded: stored like the customers' pictures.
			owner.do(chromedp.SetUploadFiles(chromedp.CSS("#logo_file"), []string{logoFile(t)}, poll))
			owner.do(chromedp.Click(chromedp.CSS(`form[action="/business/profile"] button[type="submit"]`), poll),
				chromedp.WaitVisible(chromedp.CSS(".alert-ok"), poll))
			owner.check("profile-saved")
			if got := owner.text(".brand-name"); got != name {
				t.Errorf("the preview names %q, want %q", got, name)
			}
			if !owner.eval(`(() => { const i = document.querySelector(".brand-card img.logo");
				return !!i && i.getAttribute("src").startsWith("/images/") && i.complete && i.naturalWidth === 64 })()`) {
				t.Errorf("the uploaded logo is not shown from /images/: %s", owner.evalString(`document.querySelector(".brand-card").innerHTML`))
			}
			if got := owner.evalString(`document.querySelector("#logo").value`); !strings.HasPrefix(got, "/images/") {
				t.Errorf("the logo's address after the upload: %q", got)
			}

			friend := newTabOn(t, "friend", sc)
			friend.open(s.url+loyalty.ReferralLinkPath(prog.ID, dana.ID), "referral")
			friend.keyPage("referral")
			friend.fits("referral")
			friend.accessible("referral")
			page := friend.text("main")
			for _, want := range []string{"Join " + name, "Roasted by the sea since 1999.", "€10.00", "Dana invited you"} {
				if !strings.Contains(page, want) {
					t.Errorf("the referral page does not say %q:\n%s", want, page)
				}
			}
			// The button wears the brand colour (darkened where white text
			// on it would not read).
			bg := friend.evalString(`getComputedStyle(document.querySelector("main button[type=submit]")).backgroundColor`)
			if bg != rgb(colours[sc.name]) {
				t.Errorf("the join button's colour is %s, want the brand's %s", bg, rgb(colours[sc.name]))
			}
		})
	})
}

// rgb writes #rrggbb the way getComputedStyle does.
func rgb(hex string) string {
	var r, g, b int
	fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return fmt.Sprintf("rgb(%d, %d, %d)", r, g, b)
}

// logoFile writes a 64 x 64 PNG to upload as a logo.
func logoFile(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for x := range 64 {
		for y := range 64 {
			img.Set(x, y, color.RGBA{15, 118, 110, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "logo.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
