package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// findWithoutScripts types text in the search box of the pick field and
// presses its Find button with the page's scripts off, waiting for the
// form to come back with what the server found.
func (b *tab) findWithoutScripts(field, text string) {
	b.t.Helper()
	b.fill(`[id="`+field+`-q"]`, text)
	// The page before is marked, so that its own note is not taken for
	// the answer's.
	b.eval(`document.body.dataset.before = "1", true`)
	b.do(emulationNoScript(true))
	b.do(chromedp.Click(chromedp.CSS(`[id="`+field+`-find"]`), poll),
		chromedp.WaitVisible(chromedp.CSS(`body:not([data-before]) [id="`+field+`"] .find-note`), poll))
	b.do(emulationNoScript(false))
	if b.eval(`document.getElementById("` + field + `-find").hidden`) {
		b.t.Fatal("the form's script ran")
	}
}

// pickLabels are the labels of the pick field's checkboxes, the ticked
// ones marked with a star.
func (b *tab) pickLabels(field string) string {
	b.t.Helper()
	return b.evalString(`Array.from(document.querySelectorAll('[id="` + field + `-list"] label')).map(l =>
		(l.querySelector("input").checked ? "*" : "") + l.textContent.trim()).join("|")`)
}

// TestProductPickerNoScript: without scripts, a long pick's search box
// and Find button post the form back, which comes again with the products
// the server found by name or by SKU beside those ticked, and with every
// value typed kept; what is ticked across searches is saved. On a
// desktop and on a phone, every page checked for sideways scrolling and
// accessibility.
func TestProductPickerNoScript(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		programFixture(t, s)
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.do(emulationNoScript(true))
			o.open(s.url+"/business/program/earning-rules/new?type=points_per_item", "setup_form")
			o.do(emulationNoScript(false))
			name := "Drinks bonus " + sc.name
			o.fill("#f-name", name, `[id="f-effect.points"]`, "4")

			const field = "f-conditions.products"
			o.findWithoutScripts(field, "latt")
			if got := o.pickLabels(field); got != "Latte · LT-01" {
				t.Errorf("found for latt: %q", got)
			}
			if got := o.text(`[id="` + field + `"] .find-note`); !strings.Contains(got, "“latt”") {
				t.Errorf("the note for latt: %q", got)
			}
			if !o.eval(`document.getElementById("f-name").value === "` + name + `" && document.getElementById("f-effect.points").value === "4"`) {
				t.Error("the values typed before Find are lost")
			}
			o.check("picker_found")
			o.pick(field, "Latte")

			// By SKU; the product ticked stays, first.
			o.findWithoutScripts(field, "mf-0")
			if got := o.pickLabels(field); got != "*Latte · LT-01|Muffin, blueberry · MF-01|Muffin, chocolate · MF-02" {
				t.Errorf("found for mf-0 with Latte ticked: %q", got)
			}
			o.pick(field, "Muffin, chocolate")

			o.findWithoutScripts(field, "pretzel")
			if got := o.text(`[id="` + field + `"] .find-note`); !strings.Contains(got, "Nothing found") {
				t.Errorf("the note for pretzel: %q", got)
			}
			if got := o.pickLabels(field); got != "*Latte · LT-01|*Muffin, chocolate · MF-02" {
				t.Errorf("found for pretzel with two ticked: %q", got)
			}
			o.check("picker_nothing")

			o.do(emulationNoScript(true))
			o.submitTo("#save", "setup_list", "notice=program_saved")
			o.do(emulationNoScript(false))
			if got := o.text("main table"); !strings.Contains(got, name) || !strings.Contains(got, "on 2 products") {
				t.Errorf("the rules list:\n%s", got)
			}
		})
	})
}
