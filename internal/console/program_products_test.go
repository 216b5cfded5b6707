package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestProgramCatalog: the product search finds by name and by SKU, case
// aside, and pages; a deletion is audited; a rule's preview writes nothing
// and prices a line without a price at its product's; a cashier may do
// none of it.
func TestProgramCatalog(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.Open(t, engine)
			admin := &loyalty.AdminService{Store: db, Hash: oauth.NewHasher([]byte("test key"))}
			nb, err := admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerSpend,
				OwnerEmail: "owner@cafe.example", OwnerPassword: "owner-password"})
			if err != nil {
				t.Fatal(err)
			}
			desk := &console.ProgramDesk{Services: loyalty.NewServices(db, loyalty.ServiceOptions{}), Store: db}
			manager := loyalty.Actor{Kind: loyalty.AccountStaff, ID: loyalty.NewID(), BusinessID: nb.BusinessID, Email: "mgr@cafe.example",
				Role: loyalty.RoleManager}
			cashier := manager
			cashier.Role = loyalty.RoleCashier

			for i := range 30 {
				var in loyalty.ProductInput
				body := fmt.Sprintf(`{"title": "Item %02d", "product_sku": "SKU-%02d", "product_actual_price": 1.25}`, i, i)
				if i == 17 {
					body = `{"title": "Flat White", "product_sku": "FW-17", "product_actual_price": 3.5}`
				}
				if err := json.Unmarshal([]byte(body), &in); err != nil {
					t.Fatal(err)
				}
				if err := desk.SaveProduct(ctx, manager, "", "p", in); err != nil {
					t.Fatal(err)
				}
			}
			page, err := desk.Products(ctx, manager, "", 2)
			if err != nil || len(page.Products) != 5 || page.More || page.Total != 30 {
				t.Errorf("page 2 of 30: %d products, more %v, total %d, %v", len(page.Products), page.More, page.Total, err)
			}
			for _, q := range []string{"flat", "fw-1", " WHITE "} {
				found, err := desk.Products(ctx, manager, q, 1)
				if err != nil || len(found.Products) != 1 || found.Products[0].SKU != "FW-17" {
					t.Errorf("a search for %q found %v, %v", q, found.Products, err)
				}
			}
			if found, _ := desk.Products(ctx, manager, "1_", 1); found.Total != 0 {
				t.Errorf("a search for \"1_\" (a LIKE wildcard, taken as text) found %d", found.Total)
			}
			if found, _ := desk.Products(ctx, manager, "item", 2); len(found.Products) != 4 || found.More {
				t.Errorf("the second page of 29 items: %d, more %v", len(found.Products), found.More)
			}
			if _, err := desk.Products(ctx, cashier, "", 1); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier listed the products: %v", err)
			}

			// The preview of a new rule: the line without a price takes its product's.
			var rule loyalty.EarningRuleInput
			json.Unmarshal([]byte(`{"name": "Bonus", "effect": {"type": "bonus", "points": 7}}`), &rule)
			ev, err := desk.PreviewRule(ctx, manager, "", rule, []console.SaleLine{{SKU: "FW-17", Quantity: "2"}}, loyalty.EvaluateInput{})
			if err != nil || ev.EligibleAmount != 700 || len(ev.Applied) == 0 {
				t.Fatalf("preview = %+v, %v", ev, err)
			}
			if i := slices.IndexFunc(ev.Applied, func(o loyalty.Outcome) bool { return o.RuleID == "rule-0" }); i < 0 || ev.Applied[i].Points != 7 {
				t.Errorf("the rule previewed is not applied with 7 points: %+v", ev.Applied)
			}
			_, err = desk.PreviewRule(ctx, manager, "", rule, []console.SaleLine{{SKU: "NOPE-1"}}, loyalty.EvaluateInput{})
			testenv.WantField(t, err, "items.0.price")
			b, _ := db.Business(ctx, nb.BusinessID)
			if rules, _, _ := desk.Services.EarningRules.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 10}); len(rules) != 0 {
				t.Errorf("a preview saved %d rules", len(rules))
			}

			p := page.Products[0]
			if err := desk.DeleteProduct(ctx, manager, fmt.Sprint(p.ID), p.Title); err != nil {
				t.Fatal(err)
			}
			log, err := (&loyalty.AuditService{Store: db}).Page(ctx, loyalty.Actor{Kind: oauth.KindOwner, BusinessID: nb.BusinessID, Role: loyalty.RoleOwner}, loyalty.AuditFilter{})
			if err != nil || len(log.Entries) == 0 || log.Entries[0].Action != loyalty.AuditProgramDeleted ||
				!strings.Contains(log.Entries[0].Target, p.Title) {
				t.Errorf("the audit log's newest entry after a deletion: %+v, %v", log.Entries[:min(1, len(log.Entries))], err)
			}
		})
	}
}
