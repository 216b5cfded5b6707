package console_test

import (
	"context"
	"testing"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestBusinessProfile: every field is checked and named when wrong (the
// time zone by the IANA database); a save records only what changed,
// before and after; a profile changed meanwhile is not overwritten.
func TestBusinessProfile(t *testing.T) {
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.Open(t, engine)
			hasher := oauth.NewHasher([]byte("test key"))
			admin := &loyalty.AdminService{Store: db, Hash: hasher}
			b, err := admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerSpend,
				OwnerEmail: "owner@cafe.example", OwnerPassword: "owner-password"})
			if err != nil {
				t.Fatal(err)
			}
			cs := console.New(db, console.Options{Admin: admin, Hash: hasher})
			manager := loyalty.Actor{Kind: loyalty.AccountStaff, ID: loyalty.NewID(), BusinessID: b.BusinessID, Email: "mgr@cafe.example", Role: loyalty.RoleManager}
			cashier := manager
			cashier.Role = loyalty.RoleCashier

			p, err := cs.Profiles.Get(ctx, manager)
			if err != nil || p.Name != "Corner Cafe" || p.TimeZone != "UTC" || p.BrandColor != "" {
				t.Fatalf("new profile %+v, %v", p, err)
			}
			bad := loyalty.BusinessProfile{Name: " ", Logo: "http://cdn.example/logo.png", Cover: "javascript:alert(1)",
				Category: "pets", Currency: "1 $", TimeZone: "Mars/Olympus", BrandColor: "red"}
			_, err = cs.Profiles.Update(ctx, manager, bad)
			for _, f := range []string{"name", "logo", "cover", "category", "currency", "time_zone", "brand_color"} {
				testenv.WantField(t, err, f)
			}
			for _, tz := range []string{"", "Local"} {
				_, err = cs.Profiles.Update(ctx, manager, loyalty.BusinessProfile{Name: "Cafe", TimeZone: tz})
				testenv.WantField(t, err, "time_zone")
			}
			if _, err := cs.Profiles.Update(ctx, cashier, p); loyalty.ErrorCode(err) != loyalty.EForbidden {
				t.Errorf("a cashier saved the profile: %v", err)
			}

			next := loyalty.BusinessProfile{Name: " Corner Café ", About: "Coffee since 1999.", Logo: "https://cdn.example/logo.png",
				Cover: "/images/cover.jpg", Category: "cafe", Currency: "eur", TimeZone: "Europe/Paris", BrandColor: "#B45309"}
			saved, err := cs.Profiles.Update(ctx, manager, next)
			if err != nil || saved.Name != "Corner Café" || saved.BrandColor != "#b45309" || saved.Currency != "EUR" {
				t.Fatalf("Update = %+v, %v", saved, err)
			}
			if got, _ := cs.Profiles.Profile(ctx, b.BusinessID); got != saved {
				t.Errorf("stored profile %+v, want %+v", got, saved)
			}
			if biz, _ := db.Business(ctx, b.BusinessID); biz.Name != "Corner Café" || biz.About != "Coffee since 1999." {
				t.Errorf("the business is %q (%q) after the profile's save", biz.Name, biz.About)
			}
			// The same profile again changes nothing and logs nothing.
			if _, err := cs.Profiles.Update(ctx, manager, saved); err != nil {
				t.Fatal(err)
			}
			page, err := cs.Audit.Page(ctx, manager, loyalty.AuditFilter{})
			if err != nil || len(page.Entries) != 1 {
				t.Fatalf("audit log %+v, %v; want one entry", page.Entries, err)
			}
			e := page.Entries[0]
			if e.Action != loyalty.AuditProfileUpdated || e.ActorEmail != "mgr@cafe.example" || e.Before["time_zone"] != "UTC" ||
				e.After["time_zone"] != "Europe/Paris" || e.After["brand_color"] != "#b45309" || len(e.Before) != 8 {
				t.Errorf("audit entry %+v", e)
			}
			saved.About = "Tea too."
			if _, err := cs.Profiles.Update(ctx, manager, saved); err != nil {
				t.Fatal(err)
			}
			page, _ = cs.Audit.Page(ctx, manager, loyalty.AuditFilter{})
			if e := page.Entries[0]; len(e.Before) != 1 || e.Before["about"] != "Coffee since 1999." || e.After["about"] != "Tea too." {
				t.Errorf("second entry records %v → %v, want only the about text", e.Before, e.After)
			}

			// A save that read the profile before another one is refused.
			current, _ := cs.Profiles.Profile(ctx, b.BusinessID)
			stale := current
			stale.Name = "Someone Else's Cafe"
			if err := db.UpdateBusinessProfile(ctx, b.BusinessID, loyalty.BusinessProfile{Name: "old"}, stale); loyalty.ErrorCode(err) != loyalty.EConflict {
				t.Errorf("a stale save: %v, want a conflict", err)
			}
		})
	}
}
