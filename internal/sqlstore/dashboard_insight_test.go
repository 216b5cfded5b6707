package sqlstore_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestDashboardInsights: over ten days of a ledger, the store ranks the
// rewards by units redeemed, the offers by uses (purchases they gave
// points to, coupons redeemed; not coupons issued) and the customers by
// spend, and counts visitors, repeat visitors and spenders; a cancelled
// purchase and its cancellation count for nothing, and an entry before
// the period is the previous period's. TierMembers counts the live
// customers the tier keeper holds, by level.
func TestDashboardInsights(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		start := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
		setClock(db, start.AddDate(0, 0, -20))
		b, err := db.Business(ctx, biz.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		svc := &loyalty.TransactionService{Store: db, Customers: &loyalty.CustomerService{Store: db}}
		if _, err := svc.UpdateRules(ctx, b, decodeInput[loyalty.RulesInput](t, `{"reward_ratio": 1, "reward_milestone_amount": 1}`)); err != nil {
			t.Fatal(err)
		}
		offers := &loyalty.OfferService{Store: db}
		bonus, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t, `{"type_id": 3, "title": "Bonus", "points": 10}`))
		if err != nil {
			t.Fatal(err)
		}
		cookie, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t, `{"type_id": 8, "title": "Free cookie"}`))
		if err != nil {
			t.Fatal(err)
		}
		rewards := &loyalty.RewardService{Store: db}
		fiveOff, err := rewards.Create(ctx, b, decodeInput[loyalty.RewardInput](t,
			`{"kind": "catalog_item", "title": "Five off", "points": 10, "type_id": 16, "amount": 5, "redeem_for_gift_card": false}`))
		if err != nil {
			t.Fatal(err)
		}
		coffee, err := rewards.Create(ctx, b, decodeInput[loyalty.RewardInput](t,
			`{"kind": "catalog_item", "title": "Free coffee", "points": 5, "type_id": 15, "real_value": 3}`))
		if err != nil {
			t.Fatal(err)
		}
		ann := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("ann@x.example"), FirstName: loyalty.Some("Ann"), LastName: loyalty.Some("Lee")})
		bob := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("bob@x.example")})
		cy := createCustomer(t, db, b.ID, loyalty.CustomerInput{Phone: loyalty.Some("+14155550100")})
		l := newTierLedger(t, db, b.ID)
		day := func(d, h int) time.Time { return start.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour) }
		redeem := func(id int64, qty int64) loyalty.TransactionInput {
			return loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentRedeem),
				CatalogItems: loyalty.Some([]loyalty.ItemInput{{ID: loyalty.Some(id), Quantity: loyalty.Some(qty)}})}
		}
		l.at(day(-5, 10), cy.ID, tierReward(5000)) // the previous period's
		l.at(day(0, 9), ann.ID, tierReward(4000))
		l.at(day(3, 9), ann.ID, tierReward(4000))
		l.at(day(4, 9), bob.ID, tierReward(3000))
		gone := l.at(day(5, 9), bob.ID, tierReward(10000))
		setClock(db, day(5, 10))
		if _, err := svc.Cancel(ctx, l.b, gone.ID); err != nil {
			t.Fatal(err)
		}
		l.at(day(6, 9), ann.ID, redeem(fiveOff.ID, 2))
		l.at(day(6, 10), bob.ID, redeem(coffee.ID, 1))
		issued := l.at(day(7, 9), ann.ID, loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentGetCoupon),
			Offer: loyalty.Some(loyalty.IntRef{ID: loyalty.Some(cookie.ID)})})
		l.at(day(7, 10), ann.ID, loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentClaimCoupon),
			Coupon: loyalty.Some(loyalty.IntRef{ID: loyalty.Some(issued.CouponID)})})
		l.at(day(10, 1), bob.ID, tierReward(99900)) // after the period

		got, err := db.DashboardInsights(ctx, b.ID, loyalty.InsightQuery{Start: start, End: start.AddDate(0, 0, 10), Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		wantRewards := []loyalty.RankedReward{{ID: fiveOff.ID, Title: "Five off", Redeemed: 2}, {ID: coffee.ID, Title: "Free coffee", Redeemed: 1}}
		if !reflect.DeepEqual(got.Rewards, wantRewards) {
			t.Errorf("rewards %+v, want %+v", got.Rewards, wantRewards)
		}
		wantOffers := []loyalty.RankedOffer{{ID: bonus.ID, Title: "Bonus", Uses: 3}, {ID: cookie.ID, Title: "Free cookie", Uses: 1}}
		if !reflect.DeepEqual(got.Offers, wantOffers) {
			t.Errorf("offers %+v, want %+v", got.Offers, wantOffers)
		}
		if len(got.Customers) != 2 || got.Customers[0].ID != ann.ID || got.Customers[0].Spend != 8000 || got.Customers[0].Visits != 2 ||
			got.Customers[0].Name() != "Ann Lee" || got.Customers[1].ID != bob.ID || got.Customers[1].Spend != 3000 ||
			got.Customers[1].Name() != "bob@x.example" {
			t.Errorf("customers %+v, want Ann Lee with 80.00 in 2 visits, then bob@x.example with 30.00", got.Customers)
		}
		if want := (loyalty.MemberActivity{Visitors: 2, Repeaters: 1, Spenders: 2, Spend: 11000}); got.Activity != want {
			t.Errorf("activity %+v, want %+v", got.Activity, want)
		}
		top, err := db.DashboardInsights(ctx, b.ID, loyalty.InsightQuery{Start: start, End: start.AddDate(0, 0, 10), Limit: 1})
		if err != nil || len(top.Rewards) != 1 || len(top.Offers) != 1 || len(top.Customers) != 1 {
			t.Errorf("limit 1: %+v, %v", top, err)
		}
		prev, err := db.MemberActivity(ctx, b.ID, loyalty.InsightQuery{Start: start.AddDate(0, 0, -10), End: start})
		if want := (loyalty.MemberActivity{Visitors: 1, Spenders: 1, Spend: 5000}); err != nil || prev != want {
			t.Errorf("previous activity %+v, %v; want %+v", prev, err, want)
		}

		tiers := &loyalty.TierService{Store: db}
		tr, err := tiers.Create(ctx, b, loyalty.TierInput{TierLevels: tierLevelInputs("Silver", 2500, "Gold", 4000)})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id    string
			level int64
		}{{ann.ID, tr.Levels[1].ID}, {bob.ID, tr.Levels[0].ID}, {cy.ID, tr.Levels[1].ID}} {
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO customer_tiers (business_id, customer_id, tier_id, level_id, updated_at)
				VALUES ($1, $2, $3, $4, $5)`, b.ID, c.id, tr.ID, c.level, time.Now().UTC()); err != nil {
				t.Fatal(err)
			}
		}
		if err := (&loyalty.CustomerService{Store: db}).Delete(ctx, b, cy.ID); err != nil {
			t.Fatal(err)
		}
		held, err := db.TierMembers(ctx, b.ID, tr.ID)
		if want := map[int64]int64{tr.Levels[0].ID: 1, tr.Levels[1].ID: 1}; err != nil || !reflect.DeepEqual(held, want) {
			t.Errorf("tier members %v, %v; want %v (the deleted customer left out)", held, err, want)
		}
	})
}
