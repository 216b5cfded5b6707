package sqlstore_test

import (
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestOfferFrequencyLimits: a daily bonus offer counts once per customer
// per local day of the business (New York, across the spring change of
// daylight saving time), a weekly one once per local calendar week from
// Monday: a second reward the same local day, though a different day in
// UTC, gets neither; the next local day, a Monday, gets both; the day
// after, the daily one only. A daily coupon offer issues one coupon per
// customer per local day in the same way.
func TestOfferFrequencyLimits(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		setClock(db, time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC))
		b, err := db.Business(ctx, biz.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		svc := &loyalty.TransactionService{Store: db, Customers: &loyalty.CustomerService{Store: db}}
		if _, err := svc.UpdateRules(ctx, b, decodeInput[loyalty.RulesInput](t, `{"time_zone": "America/New_York"}`)); err != nil {
			t.Fatal(err)
		}
		offers := &loyalty.OfferService{Store: db}
		for _, body := range []string{`{"type_id": 3, "title": "Daily bonus", "points": 100, "offer_frequency_id": 1}`,
			`{"type_id": 3, "title": "Weekly bonus", "points": 1000, "offer_frequency_id": 2}`} {
			if _, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t, body)); err != nil {
				t.Fatal(err)
			}
		}
		c := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("daily@x.example")})
		l := newTierLedger(t, db, b.ID)
		at := func(s string) int64 {
			t.Helper()
			when, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatal(err)
			}
			return l.at(when, c.ID, tierReward(1000)).Points
		}
		sunday := at("2026-03-08T05:30:00Z")     // Sunday 00:30 EST
		sundayLate := at("2026-03-09T03:30:00Z") // Sunday 23:30 EDT, Monday in UTC
		monday := at("2026-03-09T04:30:00Z")     // Monday 00:30 EDT
		tuesday := at("2026-03-10T04:30:00Z")    // Tuesday 00:30 EDT
		if sunday-sundayLate != 1100 || monday-sundayLate != 1100 || tuesday-sundayLate != 100 {
			t.Errorf("points: Sunday %d, Sunday late %d, Monday %d, Tuesday %d; want the late Sunday's plus 1100, 1100 and 100",
				sunday, sundayLate, monday, tuesday)
		}

		coupon, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t, `{"type_id": 8, "title": "Daily coffee", "offer_frequency_id": 1}`))
		if err != nil {
			t.Fatal(err)
		}
		get := func(s string) error {
			t.Helper()
			when, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatal(err)
			}
			setClock(db, when)
			_, _, err = svc.Create(ctx, l.b, loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentGetCoupon),
				Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)}),
				Offer:    loyalty.Some(loyalty.IntRef{ID: loyalty.Some(coupon.ID)})}, nil)
			return err
		}
		if err := get("2026-03-11T05:00:00Z"); err != nil { // Wednesday 01:00 EDT
			t.Fatalf("first coupon of the day: %v", err)
		}
		wantInvalid(t, get("2026-03-12T03:59:00Z"), "offer.id") // Wednesday 23:59 EDT
		if err := get("2026-03-12T04:00:00Z"); err != nil {     // Thursday 00:00 EDT
			t.Fatalf("first coupon of the next day: %v", err)
		}
	})
}
