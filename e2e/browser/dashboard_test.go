package browser

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestDashboard: after a sale and a redemption, a manager signs in, lands
// on the dashboard and sees the figures, four charts drawn as SVG images
// with a title and a description, and the numbers as a table; switches to
// months and a branch; a cashier typing its address is refused. On a
// desktop and a phone, each page checked for sideways scrolling and
// accessibility.
func TestDashboard(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b, err := s.app.DB.Business(ctx, s.owner.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		var rules loyalty.RulesInput
		decodeInput(t, `{"reward_ratio": 1, "reward_milestone_amount": 1}`, &rules)
		if _, err := s.app.Services.Transactions.UpdateRules(ctx, b, rules); err != nil {
			t.Fatal(err)
		}
		var cashback loyalty.RewardInput
		decodeInput(t, `{"kind": "catalog_item", "title": "Five off", "points": 10, "type_id": 16, "amount": 5, "redeem_for_gift_card": false}`, &cashback)
		if _, err := s.app.Services.Rewards.Create(ctx, b, cashback); err != nil {
			t.Fatal(err)
		}
		ann, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example")})
		if err != nil {
			t.Fatal(err)
		}
		for _, body := range []string{`{"intent": "reward", "amount": 40}`, `{"intent": "redeem", "points": 15}`} {
			var in loyalty.TransactionInput
			decodeInput(t, body, &in)
			in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(ann.ID)})
			if _, _, err := s.app.Services.Transactions.Create(ctx, b, in, nil); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
		owner := newTab(t, "owner")
		s.signInOwner(owner)
		s.inviteStaff(t, owner, "boss@cafe.example", "manager", "manager-pass-1")
		s.inviteStaff(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")

		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			m := newTabOn(t, "manager", sc)
			m.open(s.url+"/business", "signin")
			m.fill("#email", "boss@cafe.example", "#password", "manager-pass-1")
			m.submit(`main button[type="submit"]`, "dashboard")
			m.check("dashboard")
			want := map[string]string{"#kpi-members": "1", "#kpi-visits": "1", "#kpi-revenue": "$40.00",
				"#kpi-issued": "40", "#kpi-redeemed": "15", "#kpi-outstanding": "25",
				// 25 points at 5.00 for 10 points.
				"#kpi-liability": "$12.50"}
			for sel, v := range want {
				if got := m.text(sel); !strings.HasSuffix(got, v) {
					t.Errorf("%s shows %q, want %s", sel, got, v)
				}
			}
			if n := m.evalString(`String(document.querySelectorAll('svg[role="img"] > title + desc').length)`); n != "4" {
				t.Errorf("%s charts with a title and a description, want 4", n)
			}
			if n := m.evalString(`String(document.querySelectorAll("main table tbody tr").length)`); n != "30" {
				t.Errorf("the table has %s days, want the last 30", n)
			}

			m.do(chromedp.SetValue(chromedp.CSS("#by"), "month", poll))
			m.submitTo("#show", "dashboard", "by=month")
			m.check("dashboard_months")
			if got := m.text("#kpi-visits"); got != "1" {
				t.Errorf("by month the visits are %q", got)
			}

			c := newTabOn(t, "cashier", sc)
			c.open(s.url+"/business", "signin")
			c.fill("#email", "till@cafe.example", "#password", "cashier-pass-1")
			c.submit(`main button[type="submit"]`, "counter")
			if st := c.status(s.url + "/business/dashboard"); st != http.StatusForbidden {
				t.Errorf("a cashier opening the dashboard: %d, want 403", st)
			}
		})
	})
}
