package console_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestMarketingDesk: the owner saves a campaign, previews it as its
// segment's first member receives it, tests it to their own address and
// sends it, saves an automation and turns it off, each change in the
// audit log by its name; the list shows campaigns newest first with
// their segment, automations as sentences. A cashier may do none of it.
func TestMarketingDesk(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.Open(t, engine)
			admin := &loyalty.AdminService{Store: db, Hash: oauth.NewHasher([]byte("test key"))}
			created, err := admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerSpend, Country: "CA",
				OwnerEmail: "owner@cafe.example", OwnerPassword: "owner-password"})
			if err != nil {
				t.Fatal(err)
			}
			svc := loyalty.NewServices(db, loyalty.ServiceOptions{})
			desk := &console.MarketingDesk{Services: svc, Store: db,
				Messages: &loyalty.CampaignRunner{Store: db, UnsubscribeKey: []byte("k"), UnsubscribeURL: "https://cafe.example/unsubscribe"}}
			cs := console.New(db, console.Options{Admin: admin})
			cashier := loyalty.Actor{Kind: loyalty.AccountStaff, ID: loyalty.NewID(), BusinessID: created.BusinessID,
				Email: "till@cafe.example", Role: loyalty.RoleCashier}
			owner := loyalty.Actor{Kind: loyalty.AccountOwner, ID: created.OwnerID, BusinessID: created.BusinessID,
				Email: "owner@cafe.example", Role: loyalty.RoleOwner}
			b, err := db.Business(ctx, created.BusinessID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
				FirstName: loyalty.Some("Ann")}); err != nil {
				t.Fatal(err)
			}
			seg, err := svc.Segments.Save(ctx, b, "", loyalty.SegmentInput{Name: loyalty.Some("Everyone"), Filters: loyalty.Some(loyalty.SegmentFilter{})})
			if err != nil {
				t.Fatal(err)
			}
			in := loyalty.CampaignInput{Name: loyalty.Some("We miss you"), SegmentID: loyalty.Some(seg.ID),
				Channels: loyalty.Some([]string{"email"}), Subject: loyalty.Some("Hello {{first_name}}"), EmailBody: loyalty.Some("Come back.")}

			if _, err := desk.SaveCampaign(ctx, cashier, "", in); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier saves a campaign: %v", err)
			}
			if _, _, err := desk.Campaigns(ctx, cashier, 1); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier lists campaigns: %v", err)
			}
			c, err := desk.SaveCampaign(ctx, owner, "", in)
			if err != nil {
				t.Fatal(err)
			}
			id := strconv.FormatInt(c.ID, 10)
			in.Name = loyalty.Some("Second")
			if _, err := desk.SaveCampaign(ctx, owner, "", in); err != nil {
				t.Fatal(err)
			}
			rows, total, err := desk.Campaigns(ctx, owner, 1)
			if err != nil || total != 2 || len(rows) != 2 || rows[0].Name != "Second" || rows[1].Segment != "Everyone" {
				t.Fatalf("the list: %+v (%d, %v)", rows, total, err)
			}
			p, err := desk.PreviewCampaign(ctx, owner, c)
			if err != nil || p.Email == nil || p.Email.Subject != "Hello Ann" {
				t.Errorf("the preview: %+v, %v", p.Email, err)
			}
			if _, err := desk.TestCampaign(ctx, cashier, id); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier tests a campaign: %v", err)
			}
			m, err := desk.TestCampaign(ctx, owner, id)
			if err != nil || m.To != "owner@cafe.example" || m.Subject != "[Test] Hello Ann" {
				t.Errorf("the test: %+v, %v", m, err)
			}
			if _, err := desk.SendCampaign(ctx, owner, id, time.Time{}); err != nil {
				t.Fatal(err)
			}
			if _, err := desk.SaveCampaign(ctx, owner, id, in); loyalty.ErrorCode(err) != loyalty.EConflict {
				t.Errorf("a sent campaign changed: %v", err)
			}
			// Automations: a cashier may not; the owner saves one, turns
			// it off, and reads it as a sentence.
			ain := loyalty.AutomationInput{Name: loyalty.Some("Welcome"), Trigger: loyalty.Some(loyalty.AutomationTrigger{Type: loyalty.TriggerFirstPurchase}),
				Actions: loyalty.Some([]loyalty.AutomationAction{{Type: loyalty.ActionGivePoints, Points: 20}})}
			if _, err := desk.SaveAutomation(ctx, cashier, "", ain); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier saves an automation: %v", err)
			}
			au, err := desk.SaveAutomation(ctx, owner, "", ain)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := desk.EnableAutomation(ctx, cashier, strconv.FormatInt(au.ID, 10), false); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier turns an automation off: %v", err)
			}
			if _, err := desk.EnableAutomation(ctx, owner, strconv.FormatInt(au.ID, 10), false); err != nil {
				t.Fatal(err)
			}
			autos, _, err := desk.Automations(ctx, owner)
			if err != nil || len(autos) != 1 || autos[0].Enabled || autos[0].Sentence != "On a member's first purchase → give 20 points" {
				t.Errorf("the automations: %+v, %v", autos, err)
			}
			log, err := cs.Audit.Page(ctx, owner, loyalty.AuditFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var targets []string
			for _, e := range log.Entries {
				targets = append(targets, e.Action+" "+e.Target)
			}
			for _, want := range []string{"program.created Campaign: We miss you", "program.updated Campaign: We miss you",
				"program.created Automation: Welcome", "program.updated Automation: Welcome"} {
				if !slices.Contains(targets, want) {
					t.Errorf("the audit log has no %q: %v", want, targets)
				}
			}
		})
	}
}
