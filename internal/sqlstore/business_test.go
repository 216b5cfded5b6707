package sqlstore_test

import (
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

func TestCreateBusiness(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		n := loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerVisit, Country: "CA",
			OwnerEmail: "owner@cafe.example", OwnerPassword: "unused"}
		cb, err := db.CreateBusiness(ctx, n, "the-hash", "cafe-key")
		if err != nil {
			t.Fatal(err)
		}
		if !loyalty.ValidID(cb.BusinessID) || !loyalty.ValidID(cb.OwnerID) || cb.ApplicationKey != "cafe-key" {
			t.Errorf("CreateBusiness = %+v", cb)
		}
		b, err := db.Business(ctx, cb.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		if b.Name != "Corner Cafe" || b.LoyaltyType != loyalty.PerVisit || b.Country != "CA" || b.CoalitionID != "" || b.CreatedAt.IsZero() {
			t.Errorf("Business = %+v", b)
		}
		acc, err := db.Account(ctx, cb.BusinessID, cb.OwnerID)
		if err != nil || acc.Owner.Email != "owner@cafe.example" || acc.Owner.BusinessID != cb.BusinessID || acc.Business.ID != cb.BusinessID {
			t.Errorf("Account = %+v, %v", acc, err)
		}
		branches, err := db.Branches(ctx, cb.BusinessID)
		if err != nil || len(branches) != 1 || !branches[0].IsMain || branches[0].Name != "Corner Cafe" {
			t.Errorf("Branches = %+v, %v; want one main branch named after the business", branches, err)
		}
		login, err := db.OwnerLogin(ctx, "owner@cafe.example")
		if err != nil || login.ID != cb.OwnerID || login.BusinessID != cb.BusinessID || login.Hash != "the-hash" {
			t.Errorf("OwnerLogin = %+v, %v", login, err)
		}
		tenant, err := db.Tenant(ctx, "cafe-key")
		if err != nil || tenant.BusinessID != cb.BusinessID || tenant.CoalitionID != "" || tenant.ID() != cb.BusinessID {
			t.Errorf("Tenant = %+v, %v", tenant, err)
		}

		_, err = db.Business(ctx, loyalty.NewID())
		wantCode(t, err, loyalty.ENotFound)
		_, err = db.Account(ctx, cb.BusinessID, loyalty.NewID())
		wantCode(t, err, loyalty.ENotFound)
		other := createBusiness(t, db, "")
		_, err = db.Account(ctx, other.BusinessID, cb.OwnerID)
		wantCode(t, err, loyalty.ENotFound)
	})
}

func TestCreateBusinessRefusals(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		first := createBusiness(t, db, "")
		n := loyalty.NewBusiness{Name: "Second", LoyaltyType: loyalty.PerSpend, Country: "US",
			OwnerEmail: first.OwnerEmail, OwnerPassword: "unused"}
		_, err := db.CreateBusiness(ctx, n, "h", "second-key")
		wantInvalid(t, err, "owner_email")

		n.OwnerEmail, n.CoalitionID = "other@shop.example", loyalty.NewID()
		_, err = db.CreateBusiness(ctx, n, "h", "third-key")
		wantInvalid(t, err, "coalition")

		// Nothing of the refused businesses was kept.
		for _, key := range []string{"second-key", "third-key"} {
			_, err := db.Tenant(ctx, key)
			wantCode(t, err, loyalty.EUnauthorized)
		}
		_, err = db.OwnerLogin(ctx, "other@shop.example")
		wantCode(t, err, loyalty.ENotFound)
	})
}

func TestCoalition(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		coalID, err := db.CreateCoalition(ctx, "Main Street", "coalition-key")
		if err != nil || !loyalty.ValidID(coalID) {
			t.Fatalf("CreateCoalition = %q, %v", coalID, err)
		}
		a := createBusiness(t, db, coalID)
		createBusiness(t, db, "") // not a member
		b := createBusiness(t, db, coalID)

		tenant, err := db.Tenant(ctx, "coalition-key")
		if err != nil || tenant.CoalitionID != coalID || tenant.BusinessID != "" || tenant.ID() != coalID || tenant.Key != "coalition-key" {
			t.Fatalf("Tenant = %+v, %v", tenant, err)
		}
		ids, err := db.BusinessIDs(ctx, tenant)
		if err != nil || !slices.Equal(ids, []string{a.BusinessID, b.BusinessID}) {
			t.Errorf("BusinessIDs(coalition) = %v, %v; want %v", ids, err, []string{a.BusinessID, b.BusinessID})
		}
		if got, err := db.Business(ctx, b.BusinessID); err != nil || got.CoalitionID != coalID {
			t.Errorf("member business = %+v, %v", got, err)
		}
		single, err := db.Tenant(ctx, a.ApplicationKey)
		if err != nil {
			t.Fatal(err)
		}
		if ids, err := db.BusinessIDs(ctx, single); err != nil || !slices.Equal(ids, []string{a.BusinessID}) {
			t.Errorf("BusinessIDs(business key) = %v, %v", ids, err)
		}
		empty, err := db.CreateCoalition(ctx, "Empty", "empty-key")
		if err != nil {
			t.Fatal(err)
		}
		if ids, err := db.BusinessIDs(ctx, loyalty.Tenant{CoalitionID: empty}); err != nil || len(ids) != 0 {
			t.Errorf("BusinessIDs(empty coalition) = %v, %v", ids, err)
		}
	})
}

func TestTenantAndRotateKey(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		_, err := db.Tenant(ctx, "no-such-key")
		wantCode(t, err, loyalty.EUnauthorized)
		_, err = db.Tenant(ctx, "")
		wantCode(t, err, loyalty.EUnauthorized)

		b := createBusiness(t, db, "")
		tenant, err := db.Tenant(ctx, b.ApplicationKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RotateKey(ctx, tenant, "rotated-1"); err != nil {
			t.Fatal(err)
		}
		_, err = db.Tenant(ctx, b.ApplicationKey)
		wantCode(t, err, loyalty.EUnauthorized)
		if got, err := db.Tenant(ctx, "rotated-1"); err != nil || got.BusinessID != b.BusinessID {
			t.Errorf("new key = %+v, %v", got, err)
		}
		// Rotating again retires the second key too.
		if err := db.RotateKey(ctx, tenant, "rotated-2"); err != nil {
			t.Fatal(err)
		}
		_, err = db.Tenant(ctx, "rotated-1")
		wantCode(t, err, loyalty.EUnauthorized)
		if got, err := db.Tenant(ctx, "rotated-2"); err != nil || got.BusinessID != b.BusinessID {
			t.Errorf("second new key = %+v, %v", got, err)
		}

		coalID, err := db.CreateCoalition(ctx, "Mall", "mall-key")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RotateKey(ctx, loyalty.Tenant{CoalitionID: coalID}, "mall-key-2"); err != nil {
			t.Fatal(err)
		}
		_, err = db.Tenant(ctx, "mall-key")
		wantCode(t, err, loyalty.EUnauthorized)
		if got, err := db.Tenant(ctx, "mall-key-2"); err != nil || got.CoalitionID != coalID || got.BusinessID != "" {
			t.Errorf("new coalition key = %+v, %v", got, err)
		}
		// The business's own key was not touched by the coalition's rotation.
		if _, err := db.Tenant(ctx, "rotated-2"); err != nil {
			t.Errorf("business key after a coalition rotation: %v", err)
		}
	})
}
