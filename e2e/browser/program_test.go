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
// refused for a missing title shows the API's message beside the field,
// and the offer saved appears in the list. On a desktop and on a phone,
// every page checked for sideways scrolling and accessibility.
func TestProgramRules(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b, err := s.app.DB.Business(ctx, s.owner.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
			FirstName: loyalty.Some("Ann")}); err != nil {
			t.Fatal(err)
		}
		ratio := map[string]string{"desktop": "3", "phone": "5"}
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.do(chromedp.Click(chromedp.CSS(`nav.console-nav a[href="/business/program"]`), poll), waitPage("program"))
			o.check("program")
			o.do(chromedp.Click(chromedp.CSS(`a[href="/business/program/rules"]`), poll), waitPage("setup_form"))
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
		})
	})
}
