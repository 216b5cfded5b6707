package loyalty_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestGiftCoupon: a coupon that costs 80 points, given as a gift, takes
// none (the entry's points are 0, its comments the reason) while one
// issued as usual takes the 80; a gift needs a reason, and the offer's
// own rules still hold (a targeted offer is not given to someone else).
func TestGiftCoupon(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"gift@example.com"}`)
		other := w.create(t, b, `{"email":"other@example.com"}`)
		w.do(t, b, `{"intent":"reward","points":100,"customer":{"id":"`+c.ID+`"}}`)
		offers := &loyalty.OfferService{Store: w.db}
		pastry, err := offers.Create(w.ctx, b, offerInput(t, `{"type_id": 2, "title": "Free pastry", "points": 80}`))
		if err != nil {
			t.Fatal(err)
		}
		l := w.ledger()

		_, err = l.GiftCoupon(w.ctx, b, c.ID, pastry.ID, "  ")
		wantInvalid(t, err, "reason")
		gift, err := l.GiftCoupon(w.ctx, b, c.ID, pastry.ID, " Sorry for the wait ")
		if err != nil {
			t.Fatal(err)
		}
		if gift.Points != 0 || gift.Comments != "Sorry for the wait" || gift.CouponID == 0 || gift.Intent != loyalty.IntentGetCoupon {
			t.Errorf("gift entry: points %d, comments %q, coupon %d, intent %s; want 0 points, the reason, a coupon, get_coupon",
				gift.Points, gift.Comments, gift.CouponID, gift.Intent)
		}
		if got := w.get(t, b, c.ID).Balance.Points; got != 100 {
			t.Errorf("balance after the gift: %d, want 100", got)
		}
		bought := w.do(t, b, `{"intent":"get_coupon","offer":{"id":`+strconv.FormatInt(pastry.ID, 10)+`},"customer":{"id":"`+c.ID+`"}}`)
		if bought.Points != -80 || w.get(t, b, c.ID).Balance.Points != 20 {
			t.Errorf("a coupon issued as usual took %d points, balance %d; want -80 and 20", bought.Points, w.get(t, b, c.ID).Balance.Points)
		}

		vip, err := offers.Create(w.ctx, b, offerInput(t,
			`{"type_id": 8, "title": "VIP", "points": 10, "targeted": true, "customers": ["`+c.ID+`"]}`))
		if err != nil {
			t.Fatal(err)
		}
		_, err = l.GiftCoupon(w.ctx, b, other.ID, vip.ID, "A regular")
		wantInvalid(t, err, "offer.id")
	})
}

// offerInput decodes an offer's API body.
func offerInput(tb testing.TB, body string) loyalty.OfferInput {
	tb.Helper()
	var in loyalty.OfferInput
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
	return in
}
