package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"
)

// catTransact posts a transaction for a customer that must succeed and
// returns its data.
func (c *client) catTransact(t *testing.T, customerID string, body map[string]any) map[string]any {
	t.Helper()
	body["customer"] = map[string]any{"id": customerID}
	return c.catData(t, http.MethodPost, "/transactions", body)
}

// catTransactFails posts a transaction for a customer that must fail.
func (c *client) catTransactFails(t *testing.T, customerID string, body map[string]any) *result {
	t.Helper()
	body["customer"] = map[string]any{"id": customerID}
	return c.do(t, http.MethodPost, "/transactions", body)
}

// catOffer creates an offer and returns its id.
func (c *client) catOffer(t *testing.T, body map[string]any) string {
	t.Helper()
	return catID(c.catData(t, http.MethodPost, "/offers", body))
}

// catStates maps each offer id of a customer-offers page to its
// coupon_type_id (0 for null) and its action types.
func catStates(p catPage) (map[string]int, map[string][]string) {
	states, actions := map[string]int{}, map[string][]string{}
	for _, m := range p.Data {
		id := catID(m)
		if f, ok := m["coupon_type_id"].(float64); ok {
			states[id] = int(f)
		} else {
			states[id] = 0
		}
		actions[id] = []string{}
		for _, a := range m["actions"].([]any) {
			actions[id] = append(actions[id], a.(map[string]any)["type"].(string))
		}
	}
	return states, actions
}

// sortedIDs returns the ids of a page, sorted.
func (p catPage) sortedIDs() []string {
	ids := p.catIDs()
	sort.Strings(ids)
	return ids
}

func sortedOf(ids ...string) []string {
	sort.Strings(ids)
	return ids
}

// TestCatalogCoupons covers a customer's offers and available coupons
// through the coupon flow of POST /transactions, and redeeming catalog
// items and buying gift cards.
func TestCatalogCoupons(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@coupons.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@coupons.example"})
		down := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)
		a.catTransact(t, ann.ID, map[string]any{"intent": "reward", "points": 100})

		regular := a.catOffer(t, map[string]any{"type_id": 9, "title": "10% off", "discount_value": 10, "branches": []string{down}})
		convertible := a.catOffer(t, map[string]any{"type_id": 10, "title": "$5 off", "discount_value": 5, "convertible": true, "points": 5})
		forBob := a.catOffer(t, map[string]any{"type_id": 8, "title": "Free muffin", "targeted": true, "customers": []string{bob.ID}})
		expired := a.catOffer(t, map[string]any{"type_id": 9, "title": "Last year", "discount_value": 10,
			"starts_at": "2020-01-01T00:00:00+00:00", "expires_at": "2020-02-01T00:00:00+00:00"})
		points := a.catOffer(t, map[string]any{"type_id": 1, "title": "Double points", "multip_factor": 2})
		disabled := a.catOffer(t, map[string]any{"type_id": 9, "title": "Off", "discount_value": 10, "enabled": false})
		later := a.catOffer(t, map[string]any{"type_id": 9, "title": "Next year", "discount_value": 10,
			"starts_at": time.Now().UTC().AddDate(1, 0, 0).Format(time.RFC3339)})
		_ = later
		offersOf := func(c customer, query string) catPage {
			t.Helper()
			return a.catList(t, "/customers/"+c.ID+"/offers"+query)
		}

		t.Run("offers before any coupon", func(t *testing.T) {
			p := offersOf(ann, "")
			if got := p.sortedIDs(); !slices.Equal(got, sortedOf(regular, convertible, points)) {
				t.Errorf("ann's offers %v, want regular, convertible and points (not bob's, expired, disabled, future)", p.catIDs())
			}
			states, actions := catStates(p)
			for _, id := range []string{regular, convertible} {
				if states[id] != 0 || !slices.Equal(actions[id], []string{"get_coupon"}) {
					t.Errorf("offer %s: state %d, actions %v", id, states[id], actions[id])
				}
			}
			if len(actions[points]) != 0 {
				t.Errorf("a points offer has actions %v", actions[points])
			}
			bp := offersOf(bob, "")
			_, bActions := catStates(bp)
			if !slices.Equal(bp.sortedIDs(), sortedOf(regular, convertible, forBob, points)) || !slices.Equal(bActions[forBob], []string{"get_coupon"}) {
				t.Errorf("bob's offers %v, actions %v", bp.catIDs(), bActions)
			}
			if m := p.Meta; m["total"] != 3.0 || m["per_page"] != 15.0 || m["current_page"] != 1.0 || p.Links["next"] != nil {
				t.Errorf("meta %v, links %v", m, p.Links)
			}
			if l := a.catList(t, "/customers/"+ann.ID+"/available-coupons"); len(l.Data) != 0 || l.Meta["total"] != 0.0 {
				t.Errorf("available coupons before any: %v", l.Data)
			}
		})

		var c74, c91 float64
		t.Run("get coupons", func(t *testing.T) {
			tx := a.catTransact(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(regular)}})
			cp := tx["coupon"].(map[string]any)
			c74 = cp["id"].(float64)
			if cp["coupon_type_id"] != 74.0 || cp["qrcode"] == "" || cp["offer"].(map[string]any)["type"] != "discount_percentage" {
				t.Errorf("get_coupon gave %v", cp)
			}
			tx = a.catTransact(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(convertible)}})
			cp = tx["coupon"].(map[string]any)
			c91 = cp["id"].(float64)
			if cp["coupon_type_id"] != 91.0 || tx["points"] != -5.0 || tx["balance"].(map[string]any)["points"] != 95.0 {
				t.Errorf("convertible get_coupon gave %v", tx)
			}
			l := a.catList(t, "/customers/"+ann.ID+"/available-coupons")
			if l.Meta["total"] != 2.0 || len(l.Data) != 2 || l.Data[0]["coupon_type_id"] != 74.0 || l.Data[1]["coupon_type_id"] != 91.0 ||
				catID(l.Data[0]["offer"].(map[string]any)) != regular || catID(l.Data[1]["offer"].(map[string]any)) != convertible {
				t.Errorf("available coupons %v", l.Data)
			}
			for query, want := range map[string][]string{
				"?coupon_type_id=eq|74":              {regular},
				"?coupon_type_id=in|74,91":           {regular, convertible},
				"?coupon_type_id=eq|91":              {convertible},
				"?coupon_type_id=eq|75":              {},
				"?coupon_type_id=not_in|74,75,91,92": {points},
			} {
				if p := offersOf(ann, query); !slices.Equal(p.sortedIDs(), sortedOf(want...)) {
					t.Errorf("offers%s = %v, want %v", query, p.catIDs(), want)
				}
			}
		})

		t.Run("claim", func(t *testing.T) {
			tx := a.catTransact(t, ann.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": c74}})
			if tx["coupon"].(map[string]any)["coupon_type_id"] != 75.0 {
				t.Errorf("claim gave %v", tx["coupon"])
			}
			l := a.catList(t, "/customers/"+ann.ID+"/available-coupons")
			if len(l.Data) != 1 || l.Data[0]["id"] != c91 {
				t.Errorf("after the claim available coupons are %v", l.Data)
			}
			p := offersOf(ann, "?coupon_type_id=eq|75&relationships=branch")
			if !slices.Equal(p.catIDs(), []string{regular}) || p.Data[0]["coupon_type_id"] != 75.0 ||
				p.Data[0]["branch"].(map[string]any)["id"] != down {
				t.Errorf("claimed offers %v", p.Data)
			}
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": c74}}).wantFields(t, "coupon.id")
		})

		t.Run("get_coupon refused", func(t *testing.T) {
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(expired)}}).wantFields(t, "offer.id")
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(forBob)}}).wantFields(t, "offer.id")
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(disabled)}}).wantFields(t, "offer.id")
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(points)}}).wantFields(t, "offer.id")
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": 999999}}).wantError(t, http.StatusNotFound)
			tx := a.catTransact(t, bob.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(forBob)}})
			bobs := tx["coupon"].(map[string]any)["id"]
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": bobs}}).wantError(t, http.StatusNotFound)
			if p := offersOf(bob, "?coupon_type_id=eq|74"); !slices.Equal(p.catIDs(), []string{forBob}) {
				t.Errorf("bob's pending offers %v", p.catIDs())
			}
		})

		t.Run("list errors and paging", func(t *testing.T) {
			base := "/customers/" + ann.ID + "/offers"
			for _, q := range []string{"?coupon_type_id=gt|74", "?coupon_type_id=eq|80", "?coupon_type_id=eq|x", "?coupon_type_id=between|74,75",
				"?type_id=eq|9", "?relationships=customer"} {
				a.get(t, base+q).wantError(t, http.StatusBadRequest)
			}
			a.get(t, base+"?per_page=101").wantFields(t, "per_page")
			a.get(t, "/customers/"+ann.ID+"/available-coupons?per_page=0").wantFields(t, "per_page")
			a.get(t, "/customers/"+ann.ID+"/available-coupons?coupon_type_id=eq|74").wantError(t, http.StatusBadRequest)
			p := offersOf(ann, "?per_page=2&page=2")
			if len(p.Data) != 1 || p.Meta["total"] != 3.0 || p.Meta["last_page"] != 2.0 || p.Meta["from"] != 3.0 || p.Links["next"] != nil ||
				p.Links["prev"] == nil || *p.Links["prev"] != "customers/"+ann.ID+"/offers?page=1&per_page=2" {
				t.Errorf("page 2 of 2: meta %v, links %v", p.Meta, p.Links)
			}
			for _, path := range []string{"/offers", "/available-coupons"} {
				a.get(t, "/customers/0123456789abcdef0123456789abcdef"+path).wantError(t, http.StatusNotFound, "Customer")
				a.get(t, "/customers/nope"+path).wantError(t, http.StatusBadRequest)
			}
			other := e.newBusiness(t, "Other Shop")
			b := e.owner(t, other)
			b.get(t, "/customers/"+ann.ID+"/offers").wantError(t, http.StatusNotFound)
			b.get(t, "/customers/"+ann.ID+"/available-coupons").wantError(t, http.StatusNotFound)
			bc := b.createCustomer(t, map[string]any{"email": "ann@coupons.example"})
			if l := b.catList(t, "/customers/"+bc.ID+"/offers"); len(l.Data) != 0 {
				t.Errorf("in another business ann sees offers %v", l.catIDs())
			}
		})

		t.Run("deleted offer keeps its coupons", func(t *testing.T) {
			a.do(t, http.MethodDelete, "/offers/"+convertible, nil).want(t, http.StatusNoContent)
			if p := offersOf(ann, ""); slices.Contains(p.catIDs(), convertible) {
				t.Errorf("a deleted offer is still listed: %v", p.catIDs())
			}
			l := a.catList(t, "/customers/"+ann.ID+"/available-coupons")
			if len(l.Data) != 1 || catID(l.Data[0]["offer"].(map[string]any)) != convertible {
				t.Errorf("the coupon of a deleted offer: %v", l.Data)
			}
		})

		t.Run("catalog redemption", func(t *testing.T) {
			item := catID(a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 20}))
			custom := catID(a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "custom_reward", "title": "Cake", "points": 1}))
			tx := a.catTransact(t, ann.ID, map[string]any{"intent": "redeem", "catalog_items": []map[string]any{{"id": catNum(item), "quantity": 3}}})
			if tx["points"] != -60.0 || tx["balance"].(map[string]any)["points"] != 35.0 {
				t.Errorf("redeeming 3 x 20 points: %v", tx)
			}
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "redeem", "catalog_items": []map[string]any{{"id": catNum(item), "quantity": 2}}}).
				wantFields(t, "points")
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "redeem", "catalog_items": []map[string]any{{"id": catNum(custom)}}}).
				wantError(t, http.StatusNotFound)
			a.do(t, http.MethodDelete, "/rewards/"+item, nil).want(t, http.StatusNoContent)
			a.catTransactFails(t, ann.ID, map[string]any{"intent": "redeem", "catalog_items": []map[string]any{{"id": catNum(item)}}}).
				wantError(t, http.StatusNotFound)
			got := a.get(t, "/customers/"+ann.ID+"?include=balance").want(t, http.StatusOK).customer(t)
			if got.Balance["points"] != 35.0 {
				t.Errorf("balance after refused redemptions: %v", got.Balance)
			}
		})

		t.Run("gift card purchase", func(t *testing.T) {
			card := catID(a.catData(t, http.MethodPost, "/giftcards", map[string]any{"title": "$50", "discount_value": 50, "real_value": 45}))
			tx := a.catTransact(t, bob.ID, map[string]any{"intent": "purchase_giftcard_prepaid", "giftcard": map[string]any{"id": catNum(card)}})
			if tx["giftcard"] != 50.0 || tx["amount"] != 45.0 || tx["balance"].(map[string]any)["giftcard"] != 50.0 {
				t.Errorf("buying a $50 card: %v", tx)
			}
			off := catID(a.catData(t, http.MethodPost, "/giftcards", map[string]any{"title": "Off", "discount_value": 5, "real_value": 5, "enabled": false}))
			a.catTransactFails(t, bob.ID, map[string]any{"intent": "purchase_giftcard_prepaid", "giftcard": map[string]any{"id": catNum(off)}}).
				wantFields(t, "giftcard.id")
			a.do(t, http.MethodDelete, "/giftcards/"+card, nil).want(t, http.StatusNoContent)
			a.catTransactFails(t, bob.ID, map[string]any{"intent": "purchase_giftcard_prepaid", "giftcard": map[string]any{"id": catNum(card)}}).
				wantError(t, http.StatusNotFound)
		})

		t.Run("coupon expiry", func(t *testing.T) {
			soon := a.catOffer(t, map[string]any{"type_id": 9, "title": "Today only", "discount_value": 10,
				"expires_at": time.Now().UTC().Add(time.Hour).Format(time.RFC3339)})
			tx := a.catTransact(t, bob.ID, map[string]any{"intent": "get_coupon", "offer": map[string]any{"id": catNum(soon)}})
			cp := tx["coupon"].(map[string]any)["id"]
			e.db.Advance(2 * time.Hour)
			if l := a.catList(t, "/customers/"+bob.ID+"/available-coupons"); slices.ContainsFunc(l.Data, func(m map[string]any) bool { return m["id"] == cp }) {
				t.Errorf("an expired coupon is available: %v", l.Data)
			}
			if p := offersOf(bob, ""); slices.Contains(p.catIDs(), soon) {
				t.Errorf("an expired offer with an expired coupon is listed: %v", p.catIDs())
			}
			a.catTransactFails(t, bob.ID, map[string]any{"intent": "claim_coupon", "coupon": map[string]any{"id": cp}}).wantFields(t, "coupon.id")
		})
	})
}

// catNum turns a path id back into the JSON number the API takes.
func catNum(id string) any {
	var n int64
	fmt.Sscan(id, &n)
	return n
}
