package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPunchCardForm: the owner creates a punch card with the pickers (a
// product ticked, the reward chosen from the coupon offers), reads it in
// the list, finds its choices kept on its form, and disables it after
// its confirmation. On a desktop and on a phone, every page checked for
// sideways scrolling and accessibility.
func TestPunchCardForm(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		programFixture(t, s)
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.open(s.url+"/business/program", "program")
			o.do(chromedp.Click(chromedp.CSS(`main a[href="/business/program/punch-cards"]`), poll), waitPage("setup_list"))
			o.do(chromedp.Click(chromedp.CSS("#new"), poll), waitPage("setup_form"))
			if got := o.text("#f-reward_offer_id"); !strings.Contains(got, "Free coffee") {
				t.Errorf("the reward's choices offer %q", got)
			}
			name := "Coffee card " + sc.name
			o.fill("#f-name", name, "#f-stamps_required", "5")
			o.pick("f-qualifies.products", "Latte")
			o.check("punch_card_new")
			o.submitTo("#save", "setup_form", "/business/program/punch-cards")
			if got := o.text("#f-reward_offer_id-error"); got == "" {
				t.Error("a card without its reward: no message beside the reward")
			}
			if !o.eval(`Array.from(document.getElementById("f-qualifies.products").querySelectorAll("input:checked")).length === 1`) {
				t.Error("the refused form lost the product ticked")
			}
			o.pick("f-reward_offer_id", "Free coffee")
			o.submitTo("#save", "setup_list", "notice=program_saved")
			o.check("punch_cards")
			if got := o.text("main table"); !strings.Contains(got, name) || !strings.Contains(got, "5 stamps") || !strings.Contains(got, "each unit of 1 product") {
				t.Errorf("the punch cards:\n%s", got)
			}
			o.do(chromedp.Click(chromedp.CSS(`main table a`), poll), waitPage("setup_form"))
			checked := o.evalString(`Array.from(document.getElementById("f-qualifies.products").querySelectorAll("input:checked")).map(i => i.closest("label").textContent.trim()).join(",")`)
			if checked != "Latte · LT-01" || o.evalString(`document.querySelector("#f-reward_offer_id input:checked").closest("label").textContent.trim()`) != "Free coffee" {
				t.Errorf("the card's form: products %q, reward kept?", checked)
			}
			o.check("punch_card_edit")

			// A rule that stamps the card: its card from a list, previewed
			// for Ann on a latte.
			o.open(s.url+"/business/program/earning-rules/new", "setup_form")
			o.do(chromedp.Click(chromedp.CSS(`#types a[href="?type=stamp"]`), poll), chromedp.WaitVisible(chromedp.CSS("#f-name"), poll))
			if o.eval(`!!document.getElementById("f-limits.budget.points")`) {
				t.Error("a stamp rule's form offers a budget of points")
			}
			o.fill("#f-name", "Double stamps "+sc.name, `[id="f-effect.stamps"]`, "2", "#sample_sku_0", "LT-01",
				"#sample_customer", "ann@friends.example")
			o.pick("f-effect.punch_card_id", name)
			o.do(chromedp.Click(chromedp.CSS("#preview"), poll))
			if got := o.waitText("#preview-gifts", name); !strings.Contains(got, "stamps") {
				t.Errorf("the stamp rule's preview gives %q", got)
			}
			o.check("stamp_rule_preview")
			o.submitTo("#save", "setup_list", "notice=program_saved")
			if got := o.text("main table"); !strings.Contains(got, "2 stamps on "+name) {
				t.Errorf("the rules with the stamp rule:\n%s", got)
			}
			o.open(s.url+"/business/program/punch-cards", "setup_list")
			o.do(chromedp.Click(chromedp.CSS(`main table a.btn`), poll), waitPage("confirm"))
			o.submitTo("#confirm", "setup_list", "notice=program_saved")
			if got := o.text("main table"); !strings.Contains(got, "Disabled") {
				t.Errorf("the punch cards after disabling:\n%s", got)
			}
		})
	})
}
