package browser

import (
	"context"
	"strconv"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestSelectsFit: no option of a console form's select is cut off once
// chosen. A program with the long names a café gives things (a coupon
// that costs points, a gift card, a reward, a punch card) is set up, and
// every console page with a select is opened on a desktop and on a phone:
// each option's text, measured in the select's font, fits the select
// (selectsFit; the flows' own pages are measured too, by check).
func TestSelectsFit(t *testing.T) {
	engines(t, func(t *testing.T, s *site) {
		ctx := context.Background()
		b := s.business(t)
		var offer loyalty.OfferInput
		decodeInput(t, `{"type_id": 2, "title": "Free almond croissant with any coffee", "points": 180}`, &offer)
		pastry, err := s.app.Services.Offers.Create(ctx, b, offer)
		if err != nil {
			t.Fatal(err)
		}
		var card loyalty.GiftcardInput
		decodeInput(t, `{"title": "Holiday gift card for friends", "real_value": 150, "discount_value": 165}`, &card)
		if _, err := s.app.Services.Giftcards.Create(ctx, b, card); err != nil {
			t.Fatal(err)
		}
		var reward loyalty.RewardInput
		decodeInput(t, `{"kind": "catalog_item", "title": "Large oat-milk latte with an extra shot", "points": 1250}`, &reward)
		if _, err := s.app.Services.Rewards.Create(ctx, b, reward); err != nil {
			t.Fatal(err)
		}
		var punch loyalty.PunchCardInput
		decodeInput(t, `{"name": "Ninth coffee free, every branch", "stamps_required": 9, "reward_offer_id": `+strconv.FormatInt(pastry.ID, 10)+`}`, &punch)
		if _, err := s.app.Services.PunchCards.Save(ctx, b, "", punch); err != nil {
			t.Fatal(err)
		}
		ann, err := s.app.Services.Customers.Create(ctx, b, loyalty.CustomerInput{Email: loyalty.Some("ann@friends.example"),
			FirstName: loyalty.Some("Ann")})
		if err != nil {
			t.Fatal(err)
		}
		// shot names the pages whose radio lists replaced selects, checked
		// whole (and saved as screenshots).
		pages := []struct{ path, page, shot string }{
			{"/business/customers", "customers", ""},
			{"/business/customers/" + ann.ID, "customer", "customer-coupons"},
			{"/business/customers/" + ann.ID + "/edit", "customer_edit", ""},
			{"/business/counter/" + ann.ID, "counter_customer", "counter-choices"},
			{"/business/imports", "imports", ""},
			{"/business/profile", "profile", ""},
			{"/business/staff", "staff", ""},
			{"/business/dashboard", "dashboard", ""},
			{"/business/program/offers/new", "setup_form", ""},
			{"/business/program/rewards/new", "setup_form", ""},
			{"/business/program/tiers/new", "setup_form", "tiers-new"},
			{"/business/program/punch-cards/new", "setup_form", ""},
			{"/business/program/products/new", "setup_form", ""},
			{"/business/program/earning-rules/new?type=coupon", "setup_form", ""},
			{"/business/program/earning-rules/new?type=stamp", "setup_form", "stamp-rule-new"},
			{"/business/segments/new", "segment_form", ""},
			{"/business/campaigns/new", "campaign_form", ""},
			{"/business/automations/new", "automation_form", ""},
		}
		onScreens(t, s, screens, func(t *testing.T, sc screen) {
			o := newTabOn(t, "owner", sc)
			s.signInOwner(o)
			for _, p := range pages {
				o.open(s.url+p.path, p.page)
				if p.shot != "" {
					o.check(p.shot)
				} else {
					o.selectsFit(p.path)
				}
			}
		})
	})
}
