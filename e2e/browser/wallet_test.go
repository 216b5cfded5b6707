package browser

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// walletScreens are a small phone and a desktop: the wallet is phone
// first, and must read at 360 px.
var walletScreens = []screen{{"phone", 360, 740, true}, {"desktop", 1280, 900, false}}

// TestWallet: a member of a business in its own colours signs in to the
// wallet with e-mail and PIN and sees the balance, a punch card and the
// QR code the counter scans (two page loads from opening the wallet);
// redeems a reward after seeing what it takes and finds its voucher with
// its QR code (three page loads from the card); and chooses to hear
// offers by e-mail; and deletes the account after a page saying what
// happens, and is signed out. Every page fits the screen and passes
// axe-core. The HTTP tests (e2e's TestWallet*) cover the rest.
func TestWallet(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		old, err := s.app.DB.BusinessProfile(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		prof := old
		prof.BrandColor = "#0f766e"
		if err := s.app.DB.UpdateBusinessProfile(ctx, b.ID, old, prof); err != nil {
			t.Fatal(err)
		}
		var in loyalty.RewardInput
		decodeInput(t, `{"kind": "catalog_item", "title": "Free coffee", "description": "Any size, any blend.", "points": 30}`, &in)
		coffee, err := s.app.Services.Rewards.Create(ctx, b, in)
		if err != nil {
			t.Fatal(err)
		}
		var mug loyalty.RewardInput
		decodeInput(t, `{"kind": "catalog_item", "title": "Cafe mug", "points": 500}`, &mug)
		if _, err := s.app.Services.Rewards.Create(ctx, b, mug); err != nil {
			t.Fatal(err)
		}
		var offer loyalty.OfferInput
		decodeInput(t, `{"type_id": 2, "title": "Free coffee on us", "points": 0}`, &offer)
		free, err := s.app.Services.Offers.Create(ctx, b, offer)
		if err != nil {
			t.Fatal(err)
		}
		var card loyalty.PunchCardInput
		decodeInput(t, `{"name": "Tenth coffee free", "stamps_required": 10, "reward_offer_id": `+strconv.FormatInt(free.ID, 10)+`}`, &card)
		if _, err := s.app.Services.PunchCards.Save(ctx, b, "", card); err != nil {
			t.Fatal(err)
		}
		program := loyalty.Program{Name: b.Name, Businesses: []loyalty.Business{b}}

		onScreens(t, s, walletScreens, func(t *testing.T, sc screen) {
			email := "member-" + sc.name + "@friends.example"
			p, err := s.app.Services.Users.Register(ctx, program, loyalty.UserInput{Email: loyalty.Some(email),
				FirstName: loyalty.Some("Maya"), PinCode: loyalty.Some(json.RawMessage(`"2468"`))})
			if err != nil {
				t.Fatal(err)
			}
			var reward loyalty.TransactionInput
			decodeInput(t, `{"intent": "adjust_points_balance", "points": 120, "customer": {"id": "`+p.ID+`"}}`, &reward)
			if _, _, err := s.app.Services.Transactions.Create(ctx, b, reward, nil); err != nil {
				t.Fatal(err)
			}
			base := s.url + "/wallet/" + b.ID
			m := newTabOn(t, "member", sc)
			loads := m.loads()
			m.open(base, "wallet_signin")
			m.check("wallet-signin")
			m.fill("#username", email, "#pin", "2468")
			m.submit(`main button[type="submit"]`, "wallet_card")
			if n := loads(); n != 2 {
				t.Errorf("opening the wallet, signing in and showing the code took %d page loads, want 2", n)
			} else {
				t.Logf("sign in and show the QR code: %d page loads (%s)", n, sc.name)
			}
			m.check("wallet-card")
			if got := m.text("#points"); got != "120" {
				t.Errorf("the card shows %q points, want 120", got)
			}
			if !m.eval(`(() => { const i = document.querySelector("#member-qr"); return i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width >= 180 })()`) {
				t.Error("the member's QR code is not shown at a scannable size")
			}
			if !strings.Contains(m.text("main"), "Tenth coffee free") {
				t.Error("the card does not show the punch card")
			}
			code := m.evalString(`document.querySelector("#member-code").textContent`)
			if c, err := s.app.Services.MemberCodes.Customer(ctx, b, code); err != nil || c.ID != p.ID {
				t.Errorf("the card's code %q finds %v, %v; want the member", code, c.ID, err)
			}
			if !m.eval(`getComputedStyle(document.querySelector(".wallet-balance dd")).color === "rgb(15, 118, 110)"`) {
				t.Error("the balance is not in the business's colour")
			}

			// Redeem: the rewards, what it takes, the voucher.
			before := loads()
			m.submit(`a[href$="/rewards"].btn`, "wallet_rewards")
			m.check("wallet-rewards")
			m.submit("#reward-"+strconv.FormatInt(coffee.ID, 10), "wallet_redeem")
			m.check("wallet-redeem")
			if got := m.text("#after"); got != "90 points" {
				t.Errorf("after redeeming the page says %q, want 90 points", got)
			}
			m.submit("#redeem", "wallet_vouchers")
			if n := loads() - before; n != 3 {
				t.Errorf("redeeming a reward from the card took %d page loads, want 3", n)
			} else {
				t.Logf("redeem a reward from the card: %d page loads (%s)", n, sc.name)
			}
			m.check("wallet-vouchers")
			if !m.eval(`document.querySelector(".voucher-issued img.qr").naturalWidth > 0`) {
				t.Error("the voucher has no QR code")
			}
			if bal, err := s.app.Services.Customers.Get(ctx, b, p.ID); err != nil || bal.Balance.Points != 90 {
				t.Errorf("balance after redeeming %d, %v; want 90", bal.Balance.Points, err)
			}

			// Choices: offers by e-mail.
			m.submit(`.wallet-nav a[href$="/settings"]`, "wallet_settings")
			m.check("wallet-settings")
			if m.eval(`document.querySelector("#marketing-email").checked`) {
				t.Error("marketing by e-mail starts checked")
			}
			m.do(chromedp.Click(chromedp.CSS("#marketing-email"), poll))
			m.submitTo("#save-marketing", "wallet_settings", "notice=saved")
			if !m.eval(`document.querySelector("#marketing-email").checked`) {
				t.Error("marketing by e-mail is not checked after saving")
			}
			st, err := s.app.Services.Consents.State(ctx, b, p.ID, loyalty.ConsentMarketing)
			if err != nil || !st.Email || st.SMS || len(st.History) != 1 || st.History[0].Source != loyalty.ConsentFromApp {
				t.Errorf("marketing consent after the wallet %+v, %v", st, err)
			}
			m.submit(`.wallet-nav a[href$="/history"]`, "wallet_history")
			m.check("wallet-history")

			// Delete the account: what happens, the PIN, then signed out.
			m.submit(`.wallet-nav a[href$="/settings"]`, "wallet_settings")
			m.submit("#delete", "wallet_delete")
			m.check("wallet-delete")
			if !strings.Contains(m.text("main"), "90 points") {
				t.Error("the deletion's page does not say which points are lost")
			}
			m.fill("#delete-pin", "2468")
			m.submitTo("#delete-account", "wallet_erased", "notice=erased")
			m.check("wallet-erased")
			if _, err := s.app.Services.Customers.Get(ctx, b, p.ID); loyalty.ErrorCode(err) != loyalty.ENotFound {
				t.Errorf("the member after deleting the account: %v, want not found", err)
			}
		})
	})
}
