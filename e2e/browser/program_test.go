package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestProgramRules: the owner changes the earning rules on the program
// pages and the counter's next sale earns by them; an offer's form
// of a type chosen first shows only that type's fields, refused for a
// missing title shows the API's message beside the field, and the offer
// saved appears in the list; a coupon offer for one customer finds her
// by name and ticks her. On a desktop and on a phone,
// every page checked for sideways scrolling and accessibility.
func TestProgramRules(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		if _, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
			FirstName: loyalty.Some("Ann")}); err != nil {
			t.Fatal(err)
		}
		ratio := map[string]string{"desktop": "3", "phone": "5"}
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.follow("/business/program", "program")
			o.check("program")
			o.do(chromedp.Click(chromedp.CSS(`main a[href="/business/program/rules"]`), poll), waitPage("setup_form"))
			o.check("rules")
			o.fill("#f-reward_ratio", ratio[sc.name], "#f-reward_milestone_amount", "1.00")
			o.submitTo("#save", "setup_form", "notice=rules_saved")

			o.open(s.url+"/business/counter?code=ann%40friends.example", "counter_customer")
			o.fill("#sale-amount", "10")
			o.do(chromedp.Click(chromedp.CSS("#preview-sale"), poll), chromedp.WaitVisible(chromedp.CSS("#preview"), poll))
			// The base points; an offer saved on an earlier screen may add to them.
			got, want := o.text("#preview"), ratio[sc.name]+"0"
			if !strings.HasPrefix(got, want+" points for $10.00") && !strings.Contains(got, want+" by your earning rules") {
				t.Errorf("after %s points per 1.00 the preview says %q, want %s points by the rules", ratio[sc.name], got, want)
			}

			o.open(s.url+"/business/program/offers/new", "setup_form")
			o.check("offer_types")
			o.do(chromedp.Click(chromedp.CSS(`#types a[href="?type=1"]`), poll), chromedp.WaitVisible(chromedp.CSS("#f-multip_factor"), poll))
			if o.eval(`!!document.getElementById("f-discount_value") || !!document.getElementById("f-coupon_expires_in")`) {
				t.Error("a points multiplier's form shows a coupon's fields")
			}
			o.check("offer_new")
			o.fill("#f-multip_factor", "2")
			o.submitTo("#save", "setup_form", "/business/program/offers")
			if got := o.text("#f-title-error"); !strings.Contains(strings.ToLower(got), "title") {
				t.Errorf("an offer without a title: %q beside the title", got)
			}
			o.check("offer_refused")
			o.fill("#f-title", "Double points "+sc.name)
			o.submitTo("#save", "setup_list", "notice=program_saved")
			o.check("offers")
			if got := o.text("main table"); !strings.Contains(got, "Double points "+sc.name) {
				t.Errorf("the offers list:\n%s", got)
			}
			// New offer opens the types, each straight to its form.
			o.do(chromedp.Click(chromedp.CSS("#new"), poll), chromedp.WaitVisible(chromedp.CSS(`#new-types a[href$="/offers/new?type=2"]`), poll))
			o.check("offers_new_menu")

			// A free pastry for Ann only: she is found by her name and ticked.
			o.open(s.url+"/business/program/offers/new?type=2", "setup_form")
			o.fill("#f-title", "Pastry for Ann "+sc.name, "#f-points", "30", "#f-customers-q", "an")
			o.do(chromedp.Click(chromedp.CSS("#f-targeted"), poll))
			o.do(chromedp.Click(chromedp.CSS("#f-customers-find"), poll), chromedp.WaitVisible(chromedp.CSS(".find-note"), poll))
			o.check("offer_find_customers")
			o.pick("f-customers-list", "ann@friends.example")
			o.submitTo("#save", "setup_list", "notice=program_saved")
			if got := o.text("main table"); !strings.Contains(got, "Pastry for Ann "+sc.name) || !strings.Contains(got, "1 customer") {
				t.Errorf("the offers list with the targeted pastry:\n%s", got)
			}
		})
	})
}
