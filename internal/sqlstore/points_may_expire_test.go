package sqlstore_test

import (
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestNeverExpiresFollowsTheRules: a token lookup tells that no point of
// a business ever had an expiry until its rules first give points one,
// and not again after the rules stop (points earned meanwhile keep their
// expiry); the customer read for such a business leaves the next expiry
// out, the other one finds it.
func TestNeverExpiresFollowsTheRules(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := createBusiness(t, db, "")
		tok := insertToken(t, db, insertApp(t, db, oauth.AppApproved), b, "")
		lookup := accessLookup(t, db, tok, b)
		first, biz := lookup()
		if !first.Key.NeverExpires {
			t.Fatal("a new business's points may expire, says the token lookup; want never")
		}
		// A customer with 15 points, 5 of them expiring in a year.
		id := seedCustomersWithLots(t, db, b.BusinessID, 1)[0]
		if c, err := db.CustomerNeverExpiring(ctx, b.BusinessID, id); err != nil || c.Balance.Points != 15 || c.Balance.Expiring != 0 {
			t.Errorf("CustomerNeverExpiring = %+v, %v; want 15 points and no expiry looked for", c.Balance, err)
		}
		if c, err := db.Customer(ctx, b.BusinessID, id); err != nil || c.Balance.Expiring != 5 {
			t.Errorf("Customer = %+v, %v; want 5 points expiring", c.Balance, err)
		}

		rules := biz.Loaded.Rules
		for i, expiry := range []loyalty.PointsExpiry{{Unit: loyalty.ExpireMonths, Count: 12}, {}} {
			rules.PointsExpireAfter = expiry
			if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.SaveRules(ctx, rules) }); err != nil {
				t.Fatal(err)
			}
			if got, _ := lookup(); got.Key.NeverExpires {
				t.Errorf("step %d (expiry %+v): the token lookup says points never expired", i, expiry)
			}
		}
	})
}

// TestPointsMayExpireBackfill: migration 00029 marks the businesses whose
// rules give points an expiry, or whose lots have one (rules changed
// since), and only those.
func TestPointsMayExpireBackfill(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		byRules, byLots, never := createBusiness(t, db, ""), createBusiness(t, db, ""), createBusiness(t, db, "")
		seedCustomersWithLots(t, db, byLots.BusinessID, 1)
		seedCustomersWithLots(t, db, never.BusinessID, 1)
		if _, err := db.SQL().ExecContext(ctx, `UPDATE point_lots SET expires_at = NULL WHERE business_id = $1`, never.BusinessID); err != nil {
			t.Fatal(err)
		}
		rules := loyalty.Rules{BusinessID: byRules.BusinessID, LoyaltyType: loyalty.PerSpend, RewardRatio: 1,
			PointsExpireAfter: loyalty.PointsExpiry{Unit: loyalty.ExpireDays, Count: 30}, TimeZone: "UTC"}
		if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.SaveRules(ctx, rules) }); err != nil {
			t.Fatal(err)
		}
		if err := db.MigrateDownTo(ctx, 28); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		marked := textColumn(t, db.SQL(), `SELECT id FROM businesses WHERE points_may_expire ORDER BY id`)
		want := []string{byRules.BusinessID, byLots.BusinessID}
		slices.Sort(want)
		if !slices.Equal(marked, want) {
			t.Errorf("marked %v, want %v (never: %s)", marked, want, never.BusinessID)
		}
	})
}
