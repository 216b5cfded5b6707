package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestCounterHandsOverVoucher: a member redeemed a mug in the app; the
// cashier scans the voucher's code at the counter and sees what to hand
// over, already paid; "Handed over" records it with who did it; the same
// code scanned again says it was handed over, when and by whom.
func TestCounterHandsOverVoucher(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		var in loyalty.RewardInput
		decodeInput(t, `{"kind": "catalog_item", "title": "Mug", "points": 20}`, &in)
		mug, err := s.app.Services.Rewards.Create(ctx, b, in)
		if err != nil {
			t.Fatal(err)
		}
		bo, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("bo@friends.example"),
			FirstName: loyalty.Some("Bo")})
		if err != nil {
			t.Fatal(err)
		}
		var reward loyalty.TransactionInput
		decodeInput(t, `{"intent": "adjust_points_balance", "points": 100, "customer": {"id": "`+bo.ID+`"}}`, &reward)
		if _, _, err := s.app.Services.Transactions.Create(ctx, b, reward, nil); err != nil {
			t.Fatal(err)
		}
		owner := newTab(t, "owner")
		s.signInOwner(owner)
		s.inviteStaff(t, owner, "hand@cafe.example", "cashier", "cashier-pass-2")

		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			red, err := s.app.Services.Vouchers.Redeem(ctx, b, bo.ID, loyalty.MemberRedemptionInput{RewardID: loyalty.Some(mug.ID)})
			if err != nil {
				t.Fatal(err)
			}
			c := newTabOn(t, "cashier", sc)
			c.open(s.url+"/business", "signin")
			c.fill("#email", "hand@cafe.example", "#password", "cashier-pass-2")
			c.submit(`main button[type="submit"]`, "counter")
			typed := strings.ToLower(red.Voucher.Code)
			c.do(chromedp.SendKeys(chromedp.CSS("#code"), typed+"\r", poll), waitPage("counter_customer"))
			c.check("counter_voucher")
			if got := c.text("#voucher"); !strings.Contains(got, "Hand over: Mug") || !strings.Contains(got, "already paid") {
				t.Errorf("the scanned voucher says %q", got)
			}
			c.submitTo("#hand-over", "counter_customer", "handed=1")
			c.check("counter_voucher_handed")
			if got := c.text("#voucher"); !strings.Contains(got, "Handed over: Mug") || !strings.Contains(got, "by hand@cafe.example") {
				t.Errorf("after handing over the page says %q", got)
			}
			c.open(s.url+"/business/counter", "counter")
			c.do(chromedp.SendKeys(chromedp.CSS("#code"), red.Voucher.Code+"\r", poll), waitPage("counter_customer"))
			if got := c.text("#voucher"); !strings.Contains(got, "Already handed over") || !strings.Contains(got, "by hand@cafe.example") ||
				!strings.Contains(got, "Do not hand it over again") {
				t.Errorf("a second scan says %q", got)
			}
			if !c.eval(`document.querySelector("#hand-over") === null`) {
				t.Error("a voucher handed over still offers Handed over")
			}
		})
	})
}
