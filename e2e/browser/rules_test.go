package browser

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// pick ticks the checkbox labelled with text in the picker whose element
// has the id field.
func (b *tab) pick(field, text string) {
	b.t.Helper()
	if !b.eval(fmt.Sprintf(`(() => { const l = Array.from(document.getElementById(%q).querySelectorAll("label")).find(l => l.textContent.includes(%q));
		if (!l) return false; const i = l.querySelector("input"); if (!i.checked) i.click(); return true })()`, field, text)) {
		b.t.Fatalf("%s's browser: no %q to tick in #%s", b.name, text, field)
	}
}

// typeIn sets the value of the input with the id field as typing does,
// telling the page's scripts.
func (b *tab) typeIn(field, value string) {
	b.t.Helper()
	if !b.eval(fmt.Sprintf(`(() => { const i = document.getElementById(%q); if (!i) return false; i.value = %q;
		i.dispatchEvent(new Event("input", {bubbles: true})); return true })()`, field, value)) {
		b.t.Fatalf("%s's browser: no #%s to type in", b.name, field)
	}
}

// waitText waits until the text of the element sel holds want, and
// returns that text.
func (b *tab) waitText(sel, want string) string {
	b.t.Helper()
	return b.waitFor(sel, want, false)
}

// waitExact waits until the text of the element sel is want.
func (b *tab) waitExact(sel, want string) {
	b.t.Helper()
	b.waitFor(sel, want, true)
}

func (b *tab) waitFor(sel, want string, exact bool) string {
	b.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	js := fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel)
	for {
		got := strings.TrimSpace(b.evalString(js))
		if strings.Contains(got, want) && (!exact || got == want) {
			return got
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s's browser: %s says %q, not %q", b.name, sel, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// programFixture sets up a program of 1 point per 1.00, a category of
// pastries with a croissant (CR-01, 2.50), a latte (LT-01, 4.00), a coupon
// offer and a customer, Ann.
func programFixture(t *testing.T, s *site) (loyalty.Business, loyalty.Customer) {
	t.Helper()
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
	cat, err := s.app.Services.Products.SaveCategory(ctx, b, "", loyalty.CategoryInput{Name: loyalty.Some("Pastries")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		fmt.Sprintf(`{"title": "Croissant", "product_sku": "CR-01", "product_actual_price": 2.5, "category_id": %d}`, cat.ID),
		`{"title": "Latte", "product_sku": "LT-01", "product_actual_price": 4}`,
		// Enough for the pickers' filter box.
		`{"title": "Muffin, blueberry", "product_sku": "MF-01", "product_actual_price": 3}`,
		`{"title": "Muffin, chocolate", "product_sku": "MF-02", "product_actual_price": 3}`,
		`{"title": "Scone", "product_sku": "SC-01", "product_actual_price": 2}`,
		`{"title": "Tea", "product_sku": "TE-01", "product_actual_price": 2}`,
		`{"title": "Espresso", "product_sku": "ES-01", "product_actual_price": 2}`,
		`{"title": "Cappuccino", "product_sku": "CA-01", "product_actual_price": 3.5}`,
		`{"title": "Juice", "product_sku": "JU-01", "product_actual_price": 3}`} {
		var in loyalty.ProductInput
		decodeInput(t, p, &in)
		if _, err := s.app.Services.Products.Create(ctx, b, in); err != nil {
			t.Fatal(err)
		}
	}
	var offer loyalty.OfferInput
	decodeInput(t, `{"type_id": 8, "title": "Free coffee", "points": 0}`, &offer)
	if _, err := s.app.Services.Offers.Create(ctx, b, offer); err != nil {
		t.Fatal(err)
	}
	ann, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
		FirstName: loyalty.Some("Ann")})
	if err != nil {
		t.Fatal(err)
	}
	return b, ann
}

// TestEarningRuleForm: the owner chooses a rule's effect first (from the
// list's New menu, or the page of effects), is refused without its points
// (the domain's message beside the field), picks a product through the
// filtered picker, sees the live preview give the rule's points on a
// sample basket before saving, saves, and reads the rule in words in the
// list; a multiplier with days and hours (double points on Tuesdays 2–5
// pm, a core job: at most 3 page loads from the dashboard) reads as its
// schedule; the Preview button works with scripts off. On a desktop and
// on a phone, every page checked for sideways scrolling and
// accessibility.
func TestEarningRuleForm(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		programFixture(t, s)
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.open(s.url+"/business/program/earning-rules", "setup_list")
			o.check("rules_empty")
			// New earning rule opens the effects, each straight to its form.
			o.do(chromedp.Click(chromedp.CSS("#new"), poll), chromedp.WaitVisible(chromedp.CSS("#new-types"), poll))
			o.check("rules_new_menu")
			o.do(chromedp.Click(chromedp.CSS(`#new-types a[href$="?type=points_per_item"]`), poll))
			o.do(chromedp.WaitVisible(chromedp.CSS(`#f-name`), poll))
			if o.eval(`!!document.getElementById("f-effect.factor")`) {
				t.Error("the points-per-item form shows a multiplier's factor")
			}
			name := "Pastry bonus " + sc.name
			o.fill("#f-name", name)
			o.submitTo("#save", "setup_form", "/business/program/earning-rules")
			if got := o.text(`[id="f-effect.points-error"]`); !strings.Contains(got, "points must be a whole number") {
				t.Errorf("a rule without its points: %q beside the points", got)
			}
			o.check("rule_refused")
			o.fill(`[id="f-effect.points"]`, "5")
			// The search box narrows the picker as one types, with no need
			// of its Find button; the product is ticked in it.
			if !o.eval(`document.getElementById("f-conditions.products-find").hidden`) {
				t.Error("with scripts, the products' Find button shows beside a box that filters as one types")
			}
			o.do(chromedp.SendKeys(chromedp.CSS(`[data-filter="f-conditions.products-list"]`), "crois", poll))
			if o.eval(`Array.from(document.querySelectorAll('[id="f-conditions.products-list"] label')).some(l => l.textContent.includes("Latte") && !l.hidden)`) {
				t.Error("the products' filter box shows Latte for crois")
			}
			o.pick("f-conditions.products", "Croissant")
			o.fill("#sample_sku_0", "CR-01", "#sample_qty_0", "2")
			o.do(chromedp.Click(chromedp.CSS("#preview"), poll))
			// 5.00 earns 5 by the points per spend, and 2 croissants 10 by the rule.
			o.waitExact("#preview-points", "15")
			if got := o.text("#preview-applied"); !strings.Contains(got, name) || !strings.Contains(got, "this rule") || !strings.Contains(got, "+10") {
				t.Errorf("the preview's applied rules:\n%s", got)
			}
			// A change of the rule shows at once.
			o.typeIn("f-effect.points", "7")
			o.waitExact("#preview-points", "19")
			o.check("rule_preview")
			o.submitTo("#save", "setup_list", "notice=program_saved")
			o.check("rules")
			if got := o.text("main table"); !strings.Contains(got, name) || !strings.Contains(got, "7 points per item") ||
				!strings.Contains(got, "on 1 product") || !strings.Contains(got, "every day") || !strings.Contains(got, "priority 0") {
				t.Errorf("the rules list:\n%s", got)
			}

			// A core job, counted from the owner's landing page: double
			// points on Tuesdays 2–5 pm, read back as its schedule.
			o.open(s.url+"/business/dashboard", "dashboard")
			loads := o.loads()
			o.follow("/business/program/earning-rules", "setup_list")
			o.do(chromedp.Click(chromedp.CSS("#new"), poll), chromedp.Click(chromedp.CSS(`#new-types a[href$="?type=multiplier"]`), poll))
			o.do(chromedp.WaitVisible(chromedp.CSS(`[id="f-effect.factor"]`), poll))
			o.fill("#f-name", "Double Tuesdays "+sc.name, `[id="f-effect.factor"]`, "2", `[id="f-schedule.from"]`, "14:00", `[id="f-schedule.to"]`, "17:00")
			o.pick("f-schedule.days", "Tue")
			o.submitTo("#save", "setup_list", "notice=program_saved")
			if n := loads(); n > 3 {
				t.Errorf("creating a double-points-on-Tuesday-afternoons rule took %d page loads from the dashboard, want 3 at most", n)
			} else {
				t.Logf("create a double points on Tuesdays 2-5 pm rule: %d page loads from the dashboard (%s)", n, sc.name)
			}
			if got := o.text("main table"); !strings.Contains(got, "×2 points") || !strings.Contains(got, "Tue 14:00–17:00") {
				t.Errorf("the rules list with the multiplier:\n%s", got)
			}

			// The page of effects still answers on its own (a link to
			// /new).
			o.open(s.url+"/business/program/earning-rules/new", "setup_form")
			o.check("rule_types")

			// A rule on the customer is previewed for a customer of the sample.
			o.open(s.url+"/business/program/earning-rules/new?type=bonus", "setup_form")
			o.fill("#f-name", "Welcome bonus", `[id="f-effect.points"]`, "50", "#sample_amount", "10")
			o.do(chromedp.Click(chromedp.CSS(`[id="f-conditions.first_purchase"]`), poll), chromedp.Click(chromedp.CSS("#preview"), poll))
			o.waitExact("#preview-points", "10")
			if got := o.text("#preview-not-applied"); !strings.Contains(got, "Welcome bonus") {
				t.Errorf("without a customer the first-purchase rule is not listed as not applied:\n%s", got)
			}
			o.typeIn("sample_customer", "ann@friends.example")
			o.waitExact("#preview-points", "60")

			// Without scripts, the Preview button answers with a page load
			// (scripts are off while the form loads, so its own never runs).
			o.do(emulationNoScript(true))
			o.open(s.url+"/business/program/earning-rules/1", "setup_form")
			o.do(emulationNoScript(false))
			if o.eval(`document.getElementById("f-conditions.products-find").hidden`) {
				t.Fatal("the form's script ran")
			}
			o.fill("#sample_sku_0", "CR-01", "#sample_qty_0", "1")
			o.submitTo("#preview", "setup_form", "/business/program/earning-rules/1")
			if got := o.waitFor("#rule-preview", "points for", false); !strings.HasPrefix(strings.TrimSpace(got), "9 points") {
				t.Errorf("without scripts the preview says %q", got)
			}
			o.check("rule_preview_noscript")
		})
	})
}

// emulationNoScript turns the page's scripts off (or on again): the
// pages must work without them.
func emulationNoScript(off bool) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
		return err
	})
}
