package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// decodeInput fills an input of the domain from its JSON, as the API
// would.
func decodeInput(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatal(err)
	}
}

// TestCounterSale: a cashier scans (types, ending with Enter) the
// customer's e-mail at the counter, enters a purchase, sees the points it
// earns with the double-points offer, confirms, and sees them added; a
// reload repeats nothing; goes back to the counter, finds the customer by
// name and redeems a reward of the catalogue (a core job: at most 4 page
// loads from the counter) and sees the points taken; a manager's page
// typed in is refused. On a desktop, a
// counter tablet (768 px) and a phone, every page checked for sideways
// scrolling and accessibility.
func TestCounterSale(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		var rules loyalty.RulesInput
		decodeInput(t, `{"reward_ratio": 1, "reward_milestone_amount": 1}`, &rules)
		var offer loyalty.OfferInput
		decodeInput(t, `{"type_id": 1, "title": "Double points", "multip_factor": 2}`, &offer)
		var mug loyalty.RewardInput
		decodeInput(t, `{"kind": "catalog_item", "title": "Mug", "points": 20}`, &mug)
		if _, err := s.app.Services.Transactions.UpdateRules(ctx, b, rules); err != nil {
			t.Fatal(err)
		}
		if _, err := s.app.Services.Offers.Create(ctx, b, offer); err != nil {
			t.Fatal(err)
		}
		if _, err := s.app.Services.Rewards.Create(ctx, b, mug); err != nil {
			t.Fatal(err)
		}
		ann, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
			FirstName: loyalty.Some("Ann")})
		if err != nil {
			t.Fatal(err)
		}
		owner := newTab(t, "owner")
		s.signInOwner(owner)
		s.inviteStaff(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")

		all := append([]screen{{"tablet", 768, 1024, true}}, screens...)
		onScreens(t, s, all, func(t *testing.T, sc screen) {
			c := newTabOn(t, "cashier", sc)
			c.open(s.url+"/business", "signin")
			c.fill("#email", "till@cafe.example", "#password", "cashier-pass-1")
			c.submit(`main button[type="submit"]`, "counter")
			c.check("counter")
			// A scanner types the code and presses Enter.
			c.do(chromedp.SendKeys(chromedp.CSS("#code"), "ann@friends.example\r", poll), waitPage("counter_customer"))
			c.check("counter_customer")
			before := c.text("#points")

			c.fill("#sale-amount", "12.50")
			c.do(chromedp.Click(chromedp.CSS("#preview-sale"), poll), chromedp.WaitVisible(chromedp.CSS("#preview"), poll))
			c.check("counter_preview")
			if got := c.text("#preview"); !strings.Contains(got, "24 points for $12.50") || !strings.Contains(got, "Double points") {
				t.Errorf("the preview says %q, want 24 points with Double points", got)
			}
			c.submitTo("#confirm-sale", "counter_customer", "action=sale")
			c.check("counter_sold")
			if got := c.text("#done"); !strings.Contains(got, "+24 points") {
				t.Errorf("after the sale the page says %q", got)
			}
			sold := addPoints(before, 24)
			if got := c.text("#points"); got != sold {
				t.Errorf("balance %s after the sale, want %s", got, sold)
			}
			c.do(chromedp.Reload(), waitPage("counter_customer"))
			if got := c.text("#points"); got != sold {
				t.Errorf("balance %s after a reload, want %s still", got, sold)
			}

			// A core job, counted from the cashier's landing page: find
			// the customer by name and redeem a reward.
			c.do(chromedp.Click(chromedp.CSS("#next-customer"), poll), waitPage("counter"))
			loads := c.loads()
			c.do(chromedp.SendKeys(chromedp.CSS("#code"), "Ann\r", poll), chromedp.WaitVisible(chromedp.CSS("#found"), poll))
			c.do(chromedp.Click(chromedp.CSS("#found a.person-link"), poll), waitPage("counter_customer"))
			c.submitTo("#redeem", "counter_customer", "action=redeem")
			if n := loads(); n > 4 {
				t.Errorf("finding a customer by name and redeeming a reward took %d page loads from the counter, want 4 at most", n)
			} else {
				t.Logf("find a customer by name and redeem a reward: %d page loads from the counter (%s)", n, sc.name)
			}
			if got := c.text("#done"); !strings.Contains(got, "-20 points") {
				t.Errorf("after redeeming the page says %q", got)
			}
			if got, want := c.text("#points"), addPoints(sold, -20); got != want {
				t.Errorf("balance %s after redeeming the mug, want %s", got, want)
			}

			if st := c.status(s.url + "/business/customers/" + ann.ID + "/edit"); st != http.StatusForbidden {
				t.Errorf("a cashier opening a customer's edit page: %d, want 403", st)
			}
		})
	})
}
