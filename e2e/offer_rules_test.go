package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// rewardPoints rewards a spend of amount (at branch, when not "") and
// returns the points the entry earned; the default rules give 1 point per
// 1.00.
func (c *client) rewardPoints(t *testing.T, customerID string, amount float64, branch string) float64 {
	t.Helper()
	body := map[string]any{"intent": "reward", "amount": amount}
	if branch != "" {
		body["branch"] = map[string]any{"id": branch}
	}
	return c.catTransact(t, customerID, body)["points"].(float64)
}

// offerIDsOf lists the ids of the offers a customer sees (query appended).
func (c *client) offerIDsOf(t *testing.T, customerID, query string) []string {
	t.Helper()
	return c.catList(t, "/customers/"+customerID+"/offers"+query).sortedIDs()
}

// refImage is an image in the four sizes the reference platform uploads.
func refImage(name string) map[string]any {
	return map[string]any{"original": "https://img.example/" + name + ".png", "large": "https://img.example/" + name + "-l.png",
		"medium": "https://img.example/" + name + "-m.png", "thumbnail": "https://img.example/" + name + "-t.png"}
}

// TestOfferReferenceBody creates and updates offers with the reference
// platform's body: offer_languages, images in four sizes,
// available_at_branches, never_expires_flag, publish_at and external_id.
func TestOfferReferenceBody(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		down := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)
		expires := time.Now().UTC().Add(60 * 24 * time.Hour).Truncate(time.Second)

		o := a.catData(t, http.MethodPost, "/offers", map[string]any{
			"type_id": 9, "targeted_offer_flag": 0, "never_expires_flag": 0, "discount_value": 10, "external_id": "ORDER_123",
			"expires_at": expires.Format("2006-01-02T15:04:05-07:00"),
			"offer_languages": []map[string]any{{"language_id": 1, "offer_title": "10% OFF today", "offer_description": "Today only",
				"offer_terms_conditions": "One per visit", "offer_link": "https://shop.example/offer"},
				{"language_id": 2, "offer_title": "10 % de rabais"}},
			"available_at_branches": []map[string]any{{"id": down}},
			"images":                []map[string]any{refImage("a")},
		})
		if o["title"] != "10% OFF today" || o["description"] != "Today only" || o["external_id"] != "ORDER_123" ||
			o["targeted"] != false || fmt.Sprint(o["branches"]) != fmt.Sprint([]any{down}) ||
			o["expires_at"] != expires.Format("2006-01-02T15:04:05+00:00") {
			t.Fatalf("created %v", o)
		}
		im := o["images"].([]any)[0].(map[string]any)
		if im["original"] != "https://img.example/a.png" || im["thumbnail"] != "https://img.example/a-t.png" ||
			im["path"] != "https://img.example/a.png" || im["default"] != true {
			t.Errorf("image %v", im)
		}
		langs := o["offer_languages"].([]any)
		if len(langs) != 2 || langs[0].(map[string]any)["offer_terms_conditions"] != "One per visit" ||
			langs[1].(map[string]any)["offer_title"] != "10 % de rabais" {
			t.Errorf("offer_languages %v", langs)
		}

		// The reference's "update only the title" body.
		up := a.catData(t, http.MethodPut, "/offers/"+catID(o), map[string]any{
			"offer_languages": []map[string]any{{"language_id": 1, "offer_title": "12% OFF today"}}})
		if up["title"] != "12% OFF today" || up["description"] != "Today only" || up["discount_value"] != 10.0 {
			t.Errorf("after a title-only PUT: %v", up)
		}
		got := a.catData(t, http.MethodGet, "/offers/"+catID(o), nil)
		if got["title"] != "12% OFF today" || got["offer_languages"].([]any)[0].(map[string]any)["offer_title"] != "12% OFF today" ||
			got["offer_languages"].([]any)[0].(map[string]any)["offer_link"] != "https://shop.example/offer" {
			t.Errorf("read back %v", got)
		}
		// Our own title keeps the English text in step.
		up = a.catData(t, http.MethodPut, "/offers/"+catID(o), map[string]any{"title": "15% OFF"})
		if up["offer_languages"].([]any)[0].(map[string]any)["offer_title"] != "15% OFF" {
			t.Errorf("title did not reach the English text: %v", up["offer_languages"])
		}
		// The data-structure spelling of the language fields.
		fr := a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 10, "discount_value": 5,
			"offer_languages": []map[string]any{{"language_id": 1, "title": "$5 off", "description": "Any day"}}})
		if fr["title"] != "$5 off" || fr["description"] != "Any day" || fr["expires_at"] != nil {
			t.Errorf("offer from title/description: %v", fr)
		}
		never := a.catData(t, http.MethodPut, "/offers/"+catID(o), map[string]any{"never_expires_flag": 1})
		if never["expires_at"] != nil {
			t.Errorf("never_expires_flag 1 left expires_at %v", never["expires_at"])
		}

		put := func(body map[string]any) *result { return a.do(t, http.MethodPut, "/offers/"+catID(o), body) }
		post := func(body map[string]any) *result {
			m := map[string]any{"type_id": 9, "discount_value": 10, "offer_languages": []map[string]any{{"language_id": 1, "offer_title": "x"}}}
			for k, v := range body {
				m[k] = v
			}
			return a.do(t, http.MethodPost, "/offers", m)
		}
		post(map[string]any{"offer_languages": []map[string]any{{"language_id": 2, "offer_title": "seulement"}}}).wantFields(t, "offer_languages")
		post(map[string]any{"offer_languages": []map[string]any{}}).wantFields(t, "offer_languages")
		post(map[string]any{"offer_languages": []map[string]any{{"language_id": 4, "offer_title": "x"}}}).wantFields(t, "offer_languages.0.language_id")
		post(map[string]any{"offer_languages": []map[string]any{{"language_id": 1}}}).wantFields(t, "offer_languages.0.offer_title")
		post(map[string]any{"title": "other", "offer_languages": []map[string]any{{"language_id": 1, "offer_title": "x"}}}).
			wantFields(t, "offer_languages.0.offer_title")
		post(map[string]any{"offer_languages": []map[string]any{{"language_id": 1, "offer_title": "x", "offer_link": "ftp://x.example"}}}).
			wantFields(t, "offer_languages.0.offer_link")
		post(map[string]any{"images": []map[string]any{{"original": "https://img.example/a.png", "large": "https://img.example/b.png"}}}).
			wantFields(t, "images.0.medium", "images.0.thumbnail")
		post(map[string]any{"available_at_branches": []map[string]any{}}).wantFields(t, "available_at_branches")
		post(map[string]any{"available_at_branches": []map[string]any{{"id": "0123456789abcdef0123456789abcdef"}}}).
			wantFields(t, "available_at_branches.0.id")
		post(map[string]any{"available_at_branches": []map[string]any{{"id": down}}, "branches": []string{down}}).
			wantFields(t, "available_at_branches")
		post(map[string]any{"never_expires_flag": 0}).wantFields(t, "expires_at")
		post(map[string]any{"never_expires_flag": 1, "expires_at": expires.Format(time.RFC3339)}).wantFields(t, "never_expires_flag")
		post(map[string]any{"never_expires_flag": 2}).wantFields(t, "never_expires_flag")
		post(map[string]any{"targeted_offer_flag": 3}).wantFields(t, "targeted_offer_flag")
		post(map[string]any{"publish_at": "2030-01-01T00:00:00+00:00", "starts_at": "2030-01-01T00:00:00+00:00"}).wantFields(t, "publish_at")
		post(map[string]any{"publish_at": "2030-02-01T00:00:00+00:00", "expires_at": "2030-01-01T00:00:00+00:00"}).wantFields(t, "expires_at")
		post(map[string]any{"external_id": fmt.Sprintf("%065d", 1)}).wantFields(t, "external_id")
		put(map[string]any{"offer_languages": []map[string]any{{"language_id": 3}}}).wantFields(t, "offer_languages.0.offer_title")
		if got := a.catData(t, http.MethodGet, "/offers/"+catID(o), nil); got["title"] != "15% OFF" || len(got["offer_languages"].([]any)) != 2 {
			t.Errorf("refused updates changed the offer: %v", got)
		}
	})
}

// TestOfferAudienceAndSchedule: targeted_offer_flag, publish_at and
// available_at_branches decide who earns with a bonus offer, where and
// from when, and who sees it in the customer's offers.
func TestOfferAudienceAndSchedule(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		main := a.catList(t, "/branches").Data[0]["id"].(string)
		down := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)
		ann := a.createCustomer(t, map[string]any{"email": "ann@audience.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@audience.example"})
		bonus := func(title string, extra map[string]any) string {
			body := map[string]any{"type_id": 3, "points": 50, "never_expires_flag": 1,
				"offer_languages": []map[string]any{{"language_id": 1, "offer_title": title}}}
			for k, v := range extra {
				body[k] = v
			}
			return a.catOffer(t, body)
		}

		t.Run("targeted", func(t *testing.T) {
			id := bonus("For Ann", map[string]any{"targeted_offer_flag": 1, "customers": []string{ann.ID}})
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 60 {
				t.Errorf("Ann, a target, earned %v, want 10 + 50", p)
			}
			if p := a.rewardPoints(t, bob.ID, 10, ""); p != 10 {
				t.Errorf("Bob, not a target, earned %v, want 10", p)
			}
			if !slices.Contains(a.offerIDsOf(t, ann.ID, ""), id) || slices.Contains(a.offerIDsOf(t, bob.ID, ""), id) {
				t.Errorf("only Ann should see offer %s", id)
			}
			// The flag alone makes an offer for no one yet, as on the
			// reference platform; its targets come with customers.
			none := bonus("For nobody yet", map[string]any{"targeted_offer_flag": 1})
			if p := a.rewardPoints(t, bob.ID, 10, ""); p != 10 || slices.Contains(a.offerIDsOf(t, bob.ID, ""), none) {
				t.Errorf("an offer with no targets applied or showed: %v points", p)
			}
			a.catData(t, http.MethodPut, "/offers/"+none, map[string]any{"customers": []string{bob.ID}})
			if p := a.rewardPoints(t, bob.ID, 10, ""); p != 60 || !slices.Contains(a.offerIDsOf(t, bob.ID, ""), none) {
				t.Errorf("Bob, now a target, earned %v", p)
			}
			for _, oid := range []string{id, none} {
				a.do(t, http.MethodDelete, "/offers/"+oid, nil).want(t, http.StatusNoContent)
			}
		})

		t.Run("publish_at", func(t *testing.T) {
			at := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Second)
			id := bonus("Later", map[string]any{"targeted_offer_flag": 0, "publish_at": at.Format(time.RFC3339)})
			if got := a.catData(t, http.MethodGet, "/offers/"+id, nil); got["publish_at"] != at.Format("2006-01-02T15:04:05+00:00") {
				t.Errorf("publish_at = %v", got["publish_at"])
			}
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 10 || slices.Contains(a.offerIDsOf(t, ann.ID, ""), id) {
				t.Errorf("an offer published in two hours applied now (%v points) or showed", p)
			}
			e.db.Advance(3 * time.Hour)
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 60 || !slices.Contains(a.offerIDsOf(t, ann.ID, ""), id) {
				t.Errorf("after publish_at: %v points", p)
			}
			a.do(t, http.MethodDelete, "/offers/"+id, nil).want(t, http.StatusNoContent)
		})

		t.Run("available_at_branches", func(t *testing.T) {
			id := bonus("Downtown only", map[string]any{"available_at_branches": []map[string]any{{"id": down}}})
			if p := a.rewardPoints(t, ann.ID, 10, main); p != 10 {
				t.Errorf("at the main branch: %v points, want 10", p)
			}
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 10 {
				t.Errorf("with no branch (the main one): %v points, want 10", p)
			}
			if p := a.rewardPoints(t, ann.ID, 10, down); p != 60 {
				t.Errorf("downtown: %v points, want 60", p)
			}
			if l := a.offerIDsOf(t, ann.ID, "?branch.id=eq|"+main); slices.Contains(l, id) {
				t.Errorf("the main branch's offers include %s: %v", id, l)
			}
			if l := a.offerIDsOf(t, ann.ID, "?branch.id=in|"+main+","+down); !slices.Contains(l, id) {
				t.Errorf("downtown's offers lack %s: %v", id, l)
			}
			mainOnly := bonus("Main only", map[string]any{"available_at_branches": []map[string]any{{"id": main}}})
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 60 {
				t.Errorf("an offer of the main branch, reward with no branch: %v points, want 60", p)
			}
			a.get(t, "/customers/"+ann.ID+"/offers?branch.id=gt|"+main).wantError(t, http.StatusBadRequest, "branch.id")
			for _, oid := range []string{id, mainOnly} {
				a.do(t, http.MethodDelete, "/offers/"+oid, nil).want(t, http.StatusNoContent)
			}
		})
	})
}

// TestOfferLimits: min_purchase and max_purchase bound the spend an offer
// applies to; offer_frequency_id 4 is one use per customer, even under
// concurrent rewards, 1 one a day; a bad frequency or window and the flags
// that cannot be honoured exactly are refused naming the field;
// coupon_expires_in dates coupons.
func TestOfferLimits(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@limits.example"})

		t.Run("purchase range", func(t *testing.T) {
			b := a.catOffer(t, map[string]any{"type_id": 3, "title": "Big spenders", "points": 50, "min_purchase": 100, "max_purchase": 200})
			if p := a.rewardPoints(t, ann.ID, 1, ""); p != 1 {
				t.Errorf("1.00 with a bonus from 100: %v points, want 1", p)
			}
			if p := a.rewardPoints(t, ann.ID, 150, ""); p != 200 {
				t.Errorf("150.00: %v points, want 150 + 50", p)
			}
			if p := a.rewardPoints(t, ann.ID, 250, ""); p != 250 {
				t.Errorf("250.00 above max_purchase: %v points, want 250", p)
			}
			m := a.catOffer(t, map[string]any{"type_id": 1, "title": "Double", "multip_factor": 2, "min_purchase": 20})
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 10 {
				t.Errorf("10.00 with a multiplier from 20: %v points", p)
			}
			if p := a.rewardPoints(t, ann.ID, 20, ""); p != 40 {
				t.Errorf("20.00 doubled: %v points", p)
			}
			got := a.catData(t, http.MethodGet, "/offers/"+b, nil)
			if got["min_purchase"] != 100.0 || got["max_purchase"] != 200.0 {
				t.Errorf("range on the wire: %v, %v", got["min_purchase"], got["max_purchase"])
			}
			cl := a.catList(t, "/customers/"+ann.ID+"/offers")
			for _, o := range cl.Data {
				if catID(o) == b && (o["min_purchase"] != 100.0 || o["max_purchase"] != 200.0) {
					t.Errorf("the customer's offer does not show its range: %v", o)
				}
			}
			// A coupon offer's range applies to the purchase that claims it.
			c := a.catOffer(t, map[string]any{"type_id": 10, "title": "$5 off 50", "discount_value": 5, "min_purchase": 50})
			cp := a.catTransact(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(c)}})["coupon"].(map[string]any)["id"]
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": cp}}).wantFields(t, "amount")
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": cp}, "amount": 49.99}).
				wantFields(t, "amount")
			a.catTransact(t, ann.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": cp}, "amount": 50})
			for _, oid := range []string{b, m, c} {
				a.do(t, http.MethodDelete, "/offers/"+oid, nil).want(t, http.StatusNoContent)
			}
			a.do(t, http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": "x", "points": 5, "min_purchase": 10, "max_purchase": 5}).
				wantFields(t, "max_purchase")
			a.do(t, http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": "x", "points": 5, "max_purchase": 0}).
				wantFields(t, "max_purchase")
			a.do(t, http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": "x", "points": 5, "min_purchase": -1}).
				wantFields(t, "min_purchase")
		})

		t.Run("once per customer", func(t *testing.T) {
			id := a.catOffer(t, map[string]any{"type_id": 3, "title": "Welcome bonus", "points": 100, "offer_frequency_id": 4})
			if got := a.catData(t, http.MethodGet, "/offers/"+id, nil); got["offer_frequency_id"] != 4.0 {
				t.Errorf("offer_frequency_id = %v", got["offer_frequency_id"])
			}
			if !slices.Contains(a.offerIDsOf(t, ann.ID, ""), id) {
				t.Fatalf("the customer does not see the unused offer")
			}
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 110 {
				t.Errorf("first reward: %v points, want 110", p)
			}
			if p := a.rewardPoints(t, ann.ID, 10, ""); p != 10 {
				t.Errorf("second reward: %v points, want 10", p)
			}
			if slices.Contains(a.offerIDsOf(t, ann.ID, ""), id) {
				t.Errorf("the customer still sees an offer she has used")
			}

			// Concurrent rewards of a new customer: exactly one counts it.
			cat := a.createCustomer(t, map[string]any{"email": "cat@limits.example"})
			var wg sync.WaitGroup
			results := make([]*result, 6)
			for i := range results {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 10,
						"customer": map[string]any{"id": cat.ID}})
				}()
			}
			wg.Wait()
			var points []float64
			for _, r := range results {
				var out struct{ Data map[string]any }
				r.want(t, http.StatusOK).decode(t, &out)
				points = append(points, out.Data["points"].(float64))
			}
			slices.Sort(points)
			if fmt.Sprint(points) != "[10 10 10 10 10 110]" {
				t.Errorf("concurrent rewards earned %v, want one 110 and five 10", points)
			}
			if p, _ := a.balanceOf(t, cat.ID); p != 160 {
				t.Errorf("balance %v, want 160", p)
			}
			a.do(t, http.MethodDelete, "/offers/"+id, nil).want(t, http.StatusNoContent)

			// A coupon offer of one use: one coupon per customer.
			c := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free coffee", "offer_frequency_id": 4})
			a.catTransact(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(c)}})
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(c)}}).wantFields(t, "offer.id")
			states, actions := catStates(a.catList(t, "/customers/"+ann.ID+"/offers"))
			if states[c] != 74 || len(actions[c]) != 0 {
				t.Errorf("after its one coupon: state %d, actions %v", states[c], actions[c])
			}
		})

		t.Run("once a day per customer", func(t *testing.T) {
			// The day is the business's; two rewards a moment apart share it.
			id := a.catOffer(t, map[string]any{"type_id": 3, "title": "Daily bonus", "points": 100, "offer_frequency_id": 1})
			dot := a.createCustomer(t, map[string]any{"email": "dot@limits.example"})
			if p := a.rewardPoints(t, dot.ID, 10, ""); p != 110 {
				t.Errorf("first reward of the day: %v points, want 110", p)
			}
			if p := a.rewardPoints(t, dot.ID, 10, ""); p != 10 {
				t.Errorf("second reward of the day: %v points, want 10", p)
			}
			if slices.Contains(a.offerIDsOf(t, dot.ID, ""), id) {
				t.Errorf("the customer still sees a daily offer she used today")
			}
			a.do(t, http.MethodDelete, "/offers/"+id, nil).want(t, http.StatusNoContent)
		})

		t.Run("refused", func(t *testing.T) {
			post := func(kv ...any) *result {
				m := map[string]any{"type_id": 1, "title": "x", "multip_factor": 2}
				for i := 0; i < len(kv); i += 2 {
					m[kv[i].(string)] = kv[i+1]
				}
				return a.do(t, http.MethodPost, "/offers", m)
			}
			// 3 needs its weekdays and hours.
			post("offer_frequency_id", 3).wantFields(t, "freq_details")
			post("offer_frequency_id", 3, "freq_details", []string{"1", "8"}, "peak_from", "9:00", "peak_to", "17:30").
				wantFields(t, "freq_details.1", "peak_from")
			post("offer_frequency_id", 3, "freq_details", []string{"1"}, "peak_from", "17:30", "peak_to", "09:00").wantFields(t, "peak_to")
			post("offer_frequency_id", 1, "freq_details", []string{"1"}).wantFields(t, "freq_details")
			post("offer_frequency_id", 9).wantFields(t, "offer_frequency_id")
			post("freq_details", []string{"1", "2"}).wantFields(t, "freq_details")
			post("peak_from", "09:00").wantFields(t, "peak_from")
			post("peak_to", "17:30").wantFields(t, "peak_to")
			post("apps_only", true).wantFields(t, "apps_only")
			post("type_id", 9, "discount_value", 10, "coupon_auto_get", 1).wantFields(t, "coupon_auto_get")
			post("type_id", 9, "discount_value", 10, "coupon_perm_available", 1).wantFields(t, "coupon_perm_available")
			post("coupon_expires_in", 5).wantFields(t, "coupon_expires_in")
			post("type_id", 9, "discount_value", 10, "coupon_expires_in", -1).wantFields(t, "coupon_expires_in")
			// The values that ask for nothing more than the default pass.
			ok := a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 9, "title": "x", "discount_value": 10,
				"apps_only": false, "coupon_auto_get": 0, "coupon_perm_available": 0, "freq_details": []string{}})
			a.do(t, http.MethodDelete, "/offers/"+catID(ok), nil).want(t, http.StatusNoContent)
		})

		t.Run("coupon_expires_in", func(t *testing.T) {
			c := a.catOffer(t, map[string]any{"type_id": 9, "title": "Claim within 3 days", "discount_value": 10, "coupon_expires_in": 3})
			before := time.Now().UTC()
			cp := a.catTransact(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(c)}})["coupon"].(map[string]any)
			exp := parseTime(t, cp["expires_at"].(string))
			if exp.Before(before.Add(72*time.Hour).Truncate(time.Second)) || exp.After(time.Now().Add(72*time.Hour)) {
				t.Errorf("coupon expires %v, want three days after it was issued", exp)
			}
		})
	})
}
