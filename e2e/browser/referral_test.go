package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestReferralPage: a friend opens a customer's referral link on a phone,
// reads the offer, joins with a first name and an e-mail address, and is
// a customer of the business, referred by the one who shared the link.
func TestReferralPage(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		prog, err := (&loyalty.ReferralProgramService{Store: s.app.DB}).Create(ctx, b, loyalty.ReferralProgramInput{
			CondMinAmount: loyalty.Some[loyalty.Money](1000), RefereeEarns: loyalty.Some[int64](30),
			RefererEarns: loyalty.Some[int64](50), ExpiresIn: loyalty.Some[int64](30)})
		if err != nil {
			t.Fatal(err)
		}
		referrer, err := s.app.API.Services.Customers.Create(ctx, b, loyalty.CustomerInput{
			Email: loyalty.Some("dana@friends.example"), FirstName: loyalty.Some("Dana")})
		if err != nil {
			t.Fatal(err)
		}

		friend := newTab(t, "friend")
		friend.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		friend.open(s.url+loyalty.ReferralLinkPath(prog.ID, referrer.ID), "referral")
		friend.keyPage("referral-phone")
		page := friend.text("main")
		for _, want := range []string{"Join Corner Cafe", "Dana invited you", "30 points", "$10.00", "Your friend earns 50 points"} {
			if !strings.Contains(page, want) {
				t.Errorf("referral page does not say %q:\n%s", want, page)
			}
		}
		if friend.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`) {
			t.Error("the referral page scrolls sideways on a 390px-wide phone")
		}

		// A member's address is refused with the field marked, and what was
		// typed stays.
		friend.fill("#first_name", "Eli", "#email", "dana@friends.example")
		// The answer is the same page again: wait for its error, not its name.
		friend.do(chromedp.Click(chromedp.CSS(`main button[type="submit"]`), poll), chromedp.WaitVisible(chromedp.CSS("#email-error"), poll))
		if !friend.eval(`document.querySelector("#email").getAttribute("aria-invalid") === "true"`) {
			t.Error("a refused e-mail is not marked invalid")
		}
		if got := friend.text("#email-error"); !strings.Contains(got, "already been taken") {
			t.Errorf("e-mail error %q, want it to say the address is taken", got)
		}
		if got := friend.eval(`document.querySelector("#first_name").value === "Eli"`); !got {
			t.Error("the first name was not kept after a refusal")
		}

		friend.fill("#email", "eli@friends.example")
		friend.submit(`main button[type="submit"]`, "referral_joined")
		friend.keyPage("referral-joined")
		if got := friend.text("h1"); got != "Welcome to Corner Cafe" {
			t.Errorf("after joining the page says %q", got)
		}

		// The friend is a customer, referred through the program by the
		// one who shared the link.
		err = s.app.DB.WithTx(ctx, func(tx loyalty.Tx) error {
			u, err := tx.UserByEmail(ctx, "eli@friends.example")
			if err != nil {
				return err
			}
			if u.FirstName != "Eli" {
				t.Errorf("first name %q, want Eli", u.FirstName)
			}
			r, _, err := tx.PendingReferral(ctx, b.ID, u.ID)
			if err != nil {
				return err
			}
			if r.ReferrerID != referrer.ID || r.ProgramID != prog.ID {
				t.Errorf("the new customer's referral %+v; want referrer %s through program %d", r, referrer.ID, prog.ID)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("read the joined customer: %v", err)
		}
	})
}
