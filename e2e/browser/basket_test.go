package browser

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestCounterBasket: at the counter a cashier scans SKUs (a scanner
// types them and presses Enter): each Enter adds a line, or a unit to
// the line of its SKU, and never submits the sale; a SKU the products do
// not know takes the price typed. The preview names the unknown SKU and
// lists the rules applied with their points; the sale confirmed gives
// exactly the points previewed. Without scripts, Enter in the SKU field
// adds its line with a page load. On a desktop, a counter tablet and a
// phone, every page checked for sideways scrolling and accessibility.
func TestCounterBasket(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b, ann := programFixture(t, s)
		croissant, _, err := s.app.Services.Products.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 1,
			Filters: []loyalty.Filter{{Field: "product_sku", Op: loyalty.OpEq, Values: []any{"CR-01"}}}})
		if err != nil || len(croissant) != 1 {
			t.Fatalf("the croissant: %v, %v", croissant, err)
		}
		var rule loyalty.EarningRuleInput
		decodeInput(t, fmt.Sprintf(`{"name": "Pastry points", "conditions": {"products": [%d]}, "effect": {"type": "points_per_item", "points": 5}}`,
			croissant[0].ID), &rule)
		if _, err := s.app.Services.EarningRules.Create(ctx, b, rule); err != nil {
			t.Fatal(err)
		}
		all := append([]screen{{"tablet", 768, 1024, true}}, screens...)
		onScreens(t, s, all, func(t *testing.T, sc screen) {
			c := newTabOn(t, "owner", sc)
			s.signInOwner(c)
			serve := s.url + "/business/counter/" + ann.ID
			c.open(serve, "counter_customer")
			before := c.text("#points")
			c.do(chromedp.SendKeys(chromedp.CSS("#sale-sku"), "CR-01\r", poll), chromedp.SendKeys(chromedp.CSS("#sale-sku"), "CR-01\r", poll),
				chromedp.SendKeys(chromedp.CSS("#sale-sku"), "ZZ-99\r", poll))
			if loc, _ := c.location(); loc != serve {
				t.Fatalf("Enter in the SKU field left the page for %s", loc)
			}
			lines := c.evalString(`Array.from(document.querySelectorAll("#sale-lines li")).map(l => l.querySelector("[name=item_sku]").value + "x" + l.querySelector("[name=item_qty]").value).join(" ")`)
			if lines != "CR-01x2 ZZ-99x1" {
				t.Errorf("after scanning CR-01 twice and ZZ-99 the lines are %q", lines)
			}
			c.do(chromedp.SendKeys(chromedp.CSS(`#sale-lines li:last-child [name=item_price]`), "1.00", poll))
			c.check("counter_basket")
			c.do(chromedp.Click(chromedp.CSS("#preview-sale"), poll), chromedp.WaitVisible(chromedp.CSS("#preview"), poll))
			c.check("counter_basket_preview")
			// 6.00 earns 6 by the points per spend, and two croissants 10 by the rule.
			if got := c.text(".preview-points"); !strings.HasPrefix(got, "16 points for $6.00") {
				t.Errorf("the preview says %q, want 16 points for $6.00", got)
			}
			if got := c.text("#preview-applied"); !strings.Contains(got, "Pastry points") || !strings.Contains(got, "+10") {
				t.Errorf("the preview's rules applied:\n%s", got)
			}
			if got := c.text("#preview-unknown"); !strings.Contains(got, "ZZ-99") {
				t.Errorf("the preview's unknown SKUs: %q", got)
			}
			c.submitTo("#confirm-sale", "counter_customer", "action=sale")
			if got := c.text("#done"); !strings.Contains(got, "+16 points") {
				t.Errorf("after the sale the page says %q", got)
			}
			if got, want := c.text("#points"), addPoints(before, 16); got != want {
				t.Errorf("balance %s after the basket sale, want %s", got, want)
			}

			// Without scripts, Enter in the SKU field adds the line with a page load.
			c.do(emulationNoScript(true))
			c.open(serve, "counter_customer")
			c.do(emulationNoScript(false))
			c.do(chromedp.SendKeys(chromedp.CSS("#sale-sku"), "LT-01\r", poll))
			for i := 0; ; i++ {
				if loc, _ := c.location(); strings.Contains(loc, "add=1") {
					break
				} else if i > 100 {
					t.Fatalf("Enter in the SKU field without scripts led to %s", loc)
				}
				c.do(chromedp.Sleep(100e6))
			}
			c.do(waitPage("counter_customer"))
			if got := c.evalString(`document.querySelector("#sale-lines [name=item_sku]").value`); got != "LT-01" || c.eval(`!!document.getElementById("preview")`) {
				t.Errorf("without scripts Enter added the line %q (or previewed the sale)", got)
			}
			c.do(chromedp.Click(chromedp.CSS("#preview-sale"), poll), chromedp.WaitVisible(chromedp.CSS("#preview"), poll))
			if got := c.text(".preview-points"); !strings.HasPrefix(got, "4 points for $4.00") {
				t.Errorf("a latte's preview says %q", got)
			}

			// Change brings the lines back; a SKU no product has, without a
			// price, is refused beside its line.
			c.do(chromedp.Click(chromedp.CSS(`#change-sale`), poll), chromedp.WaitVisible(chromedp.CSS("#sale-sku"), poll))
			c.do(chromedp.SendKeys(chromedp.CSS("#sale-sku"), "QQ-1\r", poll))
			if got := c.evalString(`Array.from(document.querySelectorAll("#sale-lines [name=item_sku]")).map(i => i.value).join(" ")`); got != "LT-01 QQ-1" {
				t.Errorf("after Change and a scan the lines are %q", got)
			}
			c.do(chromedp.Click(chromedp.CSS("#preview-sale"), poll), chromedp.WaitVisible(chromedp.CSS("#sale-lines .error-text"), poll))
			c.check("counter_basket_refused")
			if got := c.text("#sale-lines .error-text"); !strings.Contains(got, "QQ-1") {
				t.Errorf("an unknown SKU without a price: %q beside its line", got)
			}
		})
	})
}
