package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestProductsAndCategories: the owner creates a category and renames
// it, creates a product in it (SKU, prices, tags, a branch ticked), finds
// it in the list by name and by SKU, sees it offered in an earning rule's
// product picker, pages through a list of thousands' kind (30 more), and
// deletes a category after its confirmation. On a desktop and on a phone,
// every page checked for sideways scrolling and accessibility.
func TestProductsAndCategories(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		for i := range 30 {
			var in loyalty.ProductInput
			decodeInput(t, fmt.Sprintf(`{"title": "Bulk item %02d", "product_sku": "BULK-%02d", "product_actual_price": 1}`, i, i), &in)
			if _, err := s.app.Services.Products.Create(ctx, b, in); err != nil {
				t.Fatal(err)
			}
		}
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			o.open(s.url+"/business/program", "program")
			o.check("program")

			o.do(chromedp.Click(chromedp.CSS(`main a[href="/business/program/categories"]`), poll), waitPage("setup_list"))
			o.do(chromedp.Click(chromedp.CSS("#new"), poll), waitPage("setup_form"))
			o.check("category_new")
			o.fill("#f-name", "Drinks "+sc.name)
			o.submitTo("#save", "setup_list", "notice=program_saved")
			o.check("categories")
			o.do(chromedp.Click(chromedp.CSS(`main table a`), poll), waitPage("setup_form"))
			o.fill("#f-name", "Hot drinks "+sc.name)
			o.submitTo("#save", "setup_list", "notice=program_saved")
			if got := o.text("main table"); !strings.Contains(got, "Hot drinks "+sc.name) {
				t.Errorf("the categories after a rename:\n%s", got)
			}
			o.open(s.url+"/business/program/categories/new", "setup_form")
			o.fill("#f-name", "Gone "+sc.name)
			o.submitTo("#save", "setup_list", "notice=program_saved")

			o.open(s.url+"/business/program/products/new", "setup_form")
			o.submitTo("#save", "setup_form", "/business/program/products")
			if got := o.text("#f-title-error"); got == "" {
				t.Error("a product without a name: no message beside the name")
			}
			sku := "FW-" + sc.name
			o.fill("#f-title", "Flat white "+sc.name, "#f-product_sku", sku, "#f-product_actual_price", "3.50",
				"#f-product_real_price", "4.00", "#f-tags", "hot, coffee")
			o.pick("f-category_id", "Hot drinks")
			o.do(chromedp.Click(chromedp.CSS(`#f-branches input[type=checkbox]`), poll))
			o.check("product_new")
			o.submitTo("#save", "setup_list", "notice=program_saved")
			o.check("products")
			if got := o.text("main"); strings.Contains(got, "Flat white") {
				t.Errorf("the first page of products shows the newest already:\n%s", got)
			}
			o.do(chromedp.Click(chromedp.CSS("#next-page"), poll))
			o.do(chromedp.WaitVisible(chromedp.CSS(`a[rel=prev]`), poll))
			if got := o.text("main table"); !strings.Contains(got, "Flat white "+sc.name) || !strings.Contains(got, sku) {
				t.Errorf("the second page of products:\n%s", got)
			}
			for _, q := range []string{"flat WHITE", strings.ToLower(sku)} {
				o.fill("#q", q)
				o.submitTo("#search", "setup_list", url.Values{"q": {q}}.Encode())
				got := o.text("main table")
				if !strings.Contains(got, "Flat white "+sc.name) || strings.Contains(got, "Bulk item") {
					t.Errorf("a search for %q found:\n%s", q, got)
				}
			}
			o.check("products_found")
			o.do(chromedp.Click(chromedp.CSS(`main table a`), poll), waitPage("setup_form"))
			if got := o.evalString(`document.querySelector("#f-category_id input:checked").closest("label").textContent.trim()`); !strings.HasPrefix(got, "Hot drinks") {
				t.Errorf("the product's category on its form: %q", got)
			}
			if !o.eval(`document.querySelector("#f-branches input").checked`) || o.evalString(`document.querySelector("#f-tags").value`) != "hot, coffee" {
				t.Error("the product's branch or tags were not kept")
			}

			// The product is offered by an earning rule's picker.
			o.open(s.url+"/business/program/earning-rules/new?type=bonus", "setup_form")
			if got := o.text("#f-conditions\\.products"); !strings.Contains(got, "Flat white "+sc.name+" · "+sku) {
				t.Errorf("the rule's product picker:\n%s", got)
			}

			// A category deleted after its confirmation.
			o.open(s.url+"/business/program/categories", "setup_list")
			o.do(chromedp.Click(chromedp.CSS(`main table tr:last-child a`), poll), waitPage("setup_form"))
			o.do(chromedp.Click(chromedp.CSS("#delete"), poll), waitPage("confirm"))
			o.check("category_delete")
			o.submitTo("#confirm", "setup_list", "notice=program_deleted")
			if got := o.text("main table"); strings.Contains(got, "Gone "+sc.name) || !strings.Contains(got, "Hot drinks "+sc.name) {
				t.Errorf("the categories after a deletion:\n%s", got)
			}
		})
	})
}
