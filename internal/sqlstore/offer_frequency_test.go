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
// after, the daily one only.
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
	})
}
