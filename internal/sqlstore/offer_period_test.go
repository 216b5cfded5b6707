package sqlstore_test

import (
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestOfferUsesCountInTheirFrequencysPeriod: a use recorded in the
// domain's period of each frequency (once ever, the day, the week) hides
// the offer from the customer's list and from the points offers exactly
// while those periods last; an unlimited offer is never used up.
func TestOfferUsesCountInTheirFrequencysPeriod(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		b, err := db.Business(ctx, biz.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		setClock(db, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		offers := &loyalty.OfferService{Store: db}
		created := map[int64]loyalty.Offer{}
		for _, kind := range []struct {
			name string
			freq string
		}{{"once", `, "offer_frequency_id": 4`}, {"daily", `, "offer_frequency_id": 1`}, {"weekly", `, "offer_frequency_id": 2`}, {"always", ``}} {
			for _, body := range []string{`{"type_id": 8, "title": "coupon ` + kind.name + `"` + kind.freq + `}`,
				`{"type_id": 3, "title": "bonus ` + kind.name + `", "points": 1` + kind.freq + `}`} {
				o, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t, body))
				if err != nil {
					t.Fatal(err)
				}
				created[o.ID] = o
			}
		}
		c := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("periods@x.example")})
		used := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC) // a Wednesday
		if err := db.WithTx(ctx, func(tx loyalty.Tx) error {
			for id, o := range created {
				if !o.Limited() {
					continue
				}
				if _, err := tx.UseOffer(ctx, id, c.ID, o.UsePeriod(used, time.UTC), used); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, at := range []struct {
			when string
			want []string // the offers still open, of each kind
		}{
			{"2026-03-04T18:00:00Z", []string{"always"}},                    // the same day
			{"2026-03-05T09:00:00Z", []string{"always", "daily"}},           // the next day, the same week
			{"2026-03-09T09:00:00Z", []string{"always", "daily", "weekly"}}, // the next Monday
		} {
			now, err := time.Parse(time.RFC3339, at.when)
			if err != nil {
				t.Fatal(err)
			}
			setClock(db, now)
			list, _, err := offers.CustomerOffers(ctx, b, c.ID, loyalty.ListQuery{Page: 1, PerPage: 100})
			if err != nil {
				t.Fatal(err)
			}
			var coupons []string
			for _, co := range list {
				if co.TypeID == 8 {
					coupons = append(coupons, co.Title)
				}
			}
			all, err := db.PointsOffers(ctx, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			points, err := loyalty.ApplicableOffers(ctx, db, b.ID, all, &loyalty.Transaction{CustomerID: c.ID, CreatedAt: now}, time.UTC, nil)
			if err != nil {
				t.Fatal(err)
			}
			var bonuses []string
			for _, o := range points {
				bonuses = append(bonuses, o.Title)
			}
			slices.Sort(coupons)
			slices.Sort(bonuses)
			var wantCoupons, wantBonuses []string
			for _, k := range at.want {
				wantCoupons, wantBonuses = append(wantCoupons, "coupon "+k), append(wantBonuses, "bonus "+k)
			}
			slices.Sort(wantCoupons)
			slices.Sort(wantBonuses)
			if !slices.Equal(coupons, wantCoupons) || !slices.Equal(bonuses, wantBonuses) {
				t.Errorf("at %s: offers %v and points offers %v, want %v and %v", at.when, coupons, bonuses, wantCoupons, wantBonuses)
			}
		}
	})
}
