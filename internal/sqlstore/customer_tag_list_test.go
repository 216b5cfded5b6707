package sqlstore_test

import (
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestBusinessTags: the tags a business's customers carry, each once,
// sorted, bounded, and none of another business's.
func TestBusinessTags(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		other := createBusiness(t, db, "")
		biz, err := db.Business(ctx, b.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := db.BusinessTags(ctx, b.BusinessID, 10); err != nil || len(got) != 0 {
			t.Fatalf("no tags yet: %v, %v", got, err)
		}
		svc := loyalty.CustomerService{Store: db}
		tag := func(businessID, email string, tags ...string) {
			t.Helper()
			c := createCustomer(t, db, businessID, loyalty.CustomerInput{Email: loyalty.Some(email)})
			bb, err := db.Business(ctx, businessID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SetTags(ctx, bb, c.ID, loyalty.TagsInput{Tags: loyalty.Some(tags)}); err != nil {
				t.Fatal(err)
			}
		}
		tag(b.BusinessID, "ann@example.com", "VIP", "staff")
		tag(b.BusinessID, "bob@example.com", "vip", "wholesale")
		tag(other.BusinessID, "cleo@example.com", "secret")
		got, err := svc.BusinessTags(ctx, biz)
		if want := []string{"staff", "vip", "wholesale"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("BusinessTags = %v, %v; want %v", got, err, want)
		}
		if got, err := db.BusinessTags(ctx, b.BusinessID, 2); err != nil || !slices.Equal(got, []string{"staff", "vip"}) {
			t.Errorf("BusinessTags limited to 2 = %v, %v", got, err)
		}
	})
}
