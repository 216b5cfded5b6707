package sqlstore_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestCouponStatesAsTheDomainNamesThem: the coupons in a state of
// loyalty.CouponIssued (regular and convertible) are available and show
// on their offers until claimed; a claim moves one from the state read
// to its claimed state once, and no second claim nor a claim of a coupon
// locked meanwhile writes anything; a claimed coupon's offer shows its
// claimed state.
func TestCouponStatesAsTheDomainNamesThem(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		setClock(db, start)
		b, err := db.Business(ctx, biz.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		c := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("states@x.example")})
		offers := &loyalty.OfferService{Store: db}
		issue := func(title string, state int, locked bool) loyalty.Coupon {
			t.Helper()
			o, err := offers.Create(ctx, b, decodeInput[loyalty.OfferInput](t, `{"type_id": 8, "title": "`+title+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			cp := loyalty.Coupon{BusinessID: b.ID, OfferID: o.ID, CustomerID: c.ID, QRCode: "QR-" + title, CouponTypeID: state,
				Locked: locked, CreatedAt: start, UpdatedAt: start}
			if err := db.WithTx(ctx, func(tx loyalty.Tx) error { return tx.InsertCoupon(ctx, &cp) }); err != nil {
				t.Fatal(err)
			}
			return cp
		}
		regular := issue("regular", loyalty.CouponRegular, false)
		convertible := issue("convertible", loyalty.CouponConvertible, false)
		locked := issue("locked", loyalty.CouponRegular, true)

		available := func() []int64 {
			t.Helper()
			list, _, err := offers.AvailableCoupons(ctx, b, c.ID, loyalty.ListQuery{Page: 1, PerPage: 100})
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, cp := range list {
				ids = append(ids, cp.ID)
			}
			return ids
		}
		states := func() map[string]int {
			t.Helper()
			list, _, err := offers.CustomerOffers(ctx, b, c.ID, loyalty.ListQuery{Page: 1, PerPage: 100})
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]int{}
			for _, co := range list {
				out[co.Title] = co.CouponTypeID
			}
			return out
		}
		if got, want := available(), []int64{regular.ID, convertible.ID, locked.ID}; !slices.Equal(got, want) {
			t.Fatalf("available coupons %v, want %v", got, want)
		}
		claim := func(cp loyalty.Coupon, from, to int) bool {
			t.Helper()
			cp.CouponTypeID, cp.Locked, cp.ClaimedAt, cp.UpdatedAt = to, false, start, start
			var ok bool
			if err := db.WithTx(ctx, func(tx loyalty.Tx) error {
				var err error
				ok, err = tx.ClaimCoupon(ctx, &cp, from)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !claim(regular, loyalty.CouponRegular, loyalty.CouponRegularRedeemed) {
			t.Fatal("the first claim of an issued coupon did not claim it")
		}
		if claim(regular, loyalty.CouponRegular, loyalty.CouponRegularRedeemed) {
			t.Error("a second claim from the issued state claimed the coupon again")
		}
		if claim(locked, loyalty.CouponRegular, loyalty.CouponRegularRedeemed) {
			t.Error("a coupon locked since it was read was claimed")
		}
		if !claim(convertible, loyalty.CouponConvertible, loyalty.CouponConvertibleRedeemed) {
			t.Fatal("the claim of an issued convertible coupon did not claim it")
		}
		if got, want := available(), []int64{locked.ID}; !slices.Equal(got, want) {
			t.Errorf("available coupons after the claims %v, want %v", got, want)
		}
		want := map[string]int{"regular": loyalty.CouponRegularRedeemed, "convertible": loyalty.CouponConvertibleRedeemed,
			"locked": loyalty.CouponRegular}
		if got := states(); !maps.Equal(got, want) {
			t.Errorf("the offers' coupon states %v, want %v", got, want)
		}
	})
}
