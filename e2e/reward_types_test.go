package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

// tierLevelIDs returns the ids of a tier program's levels, lowest first.
func (e *env) tierLevelIDs(t *testing.T, tierID int64) []int64 {
	t.Helper()
	rows, err := e.app.DB.SQL().Query(`SELECT id FROM tier_levels WHERE tier_id = $1 ORDER BY position`, tierID)
	if err != nil {
		t.Fatalf("tier levels: %v", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatalf("tier levels: %v", err)
		}
		ids = append(ids, id)
	}
	return ids
}

// redeemItem redeems quantity of a catalog item (at branch, when not "").
func (c *client) redeemItem(t *testing.T, customerID, itemID string, quantity int, branch string) *result {
	t.Helper()
	body := map[string]any{"intent": "redeem", "customer": map[string]any{"id": customerID},
		"catalog_items": []map[string]any{{"id": catNum(itemID), "quantity": quantity}}}
	if branch != "" {
		body["branch"] = map[string]any{"id": branch}
	}
	return c.do(t, http.MethodPost, "/transactions", body)
}

// dataOf decodes a 200 {data: object} reply.
func (r *result) dataOf(t *testing.T) map[string]any {
	t.Helper()
	var out struct{ Data map[string]any }
	r.want(t, http.StatusOK).decode(t, &out)
	return out.Data
}

// TestRewardTypes creates the reference platform's three reward types
// (free product, cashback, percentage), reads them back with their type
// fields, and redeems each: what a redemption gives follows the type, a
// cashback with redeem_for_gift_card credits the gift-card balance in the
// redemption's own entry, and targeted_flag, redemption_user_tiers,
// available_at_branches and publish_at decide who may redeem, where and
// from when.
func TestRewardTypes(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		main := a.catList(t, "/branches").Data[0]["id"].(string)
		down := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)
		levels := e.tierLevelIDs(t, e.tier(t, e.biz.ID, []string{"Silver", "Gold"}, []int64{100_00, 500_00}))
		ann := a.createCustomer(t, map[string]any{"email": "ann@rewards.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@rewards.example"})
		a.catTransact(t, ann.ID, map[string]any{"intent": "reward", "amount": 600}) // Gold, 600 points
		a.catTransact(t, bob.ID, map[string]any{"intent": "reward", "points": 600}) // no level: points alone reach none
		lang := func(title string) []map[string]any {
			return []map[string]any{{"language_id": 1, "title": title, "description": "", "terms_conditions": "",
				"link": "https://shop.example/reward"}}
		}

		free := a.catData(t, http.MethodPost, "/rewards", map[string]any{"type_id": 15, "points": 50, "targeted_flag": 2,
			"redemption_user_tiers": []map[string]any{{"id": levels[1]}}, "never_expires_flag": 1, "real_value": 13.99,
			"reward_languages": lang("Free Product"), "available_at_branches": []map[string]any{{"id": main}, {"id": down}},
			"images": []map[string]any{refImage("p")}})
		pct := a.catData(t, http.MethodPost, "/rewards", map[string]any{"type_id": 18, "points": 50, "targeted_flag": 0,
			"never_expires_flag": 1, "discount_value": 10, "reward_languages": lang("10% OFF"), "external_id": "R-18"})
		cash := a.catData(t, http.MethodPost, "/rewards", map[string]any{"type_id": 16, "points": 50, "targeted_flag": 1,
			"customers": []string{ann.ID}, "never_expires_flag": 1, "amount": 25.00, "redeem_for_gift_card": true,
			"reward_languages": lang("$25 gift card")})
		off := a.catData(t, http.MethodPost, "/rewards", map[string]any{"type_id": 16, "points": 20, "targeted_flag": 0,
			"amount": 5, "redeem_for_gift_card": false, "reward_languages": lang("$5 OFF"),
			"available_at_branches": []map[string]any{{"id": down}}})

		t.Run("read", func(t *testing.T) {
			want := map[string]map[string]any{
				catID(free): {"kind": "catalog_item", "type_id": 15.0, "type": "redeem_free_product", "title": "Free Product",
					"real_value": 13.99, "amount": 0.0, "discount_value": 0.0, "redeem_for_gift_card": false, "targeted_flag": 2.0,
					"points": 50.0, "expires_at": nil},
				catID(pct): {"type_id": 18.0, "type": "redeem_discount_percentage", "title": "10% OFF", "discount_value": 10.0,
					"targeted_flag": 0.0, "external_id": "R-18"},
				catID(cash): {"type_id": 16.0, "type": "redeem_discount_amount", "amount": 25.0, "redeem_for_gift_card": true,
					"targeted_flag": 1.0},
			}
			l := a.catList(t, "/rewards")
			if l.catTotal() != 4 {
				t.Fatalf("GET /rewards lists %v", l.catIDs())
			}
			for _, item := range l.Data {
				for k, v := range want[catID(item)] {
					if item[k] != v {
						t.Errorf("reward %s: %s = %v, want %v", catID(item), k, item[k], v)
					}
				}
			}
			got := a.catData(t, http.MethodGet, "/rewards/"+catID(free), nil)
			if fmt.Sprint(got["redemption_user_tiers"]) != fmt.Sprint([]any{map[string]any{"id": float64(levels[1])}}) ||
				fmt.Sprint(got["branches"]) != fmt.Sprint(sortedOf(main, down)) ||
				got["images"].([]any)[0].(map[string]any)["medium"] != "https://img.example/p-m.png" ||
				got["reward_languages"].([]any)[0].(map[string]any)["link"] != "https://shop.example/reward" {
				t.Errorf("free product read back %v", got)
			}
			if c := a.catData(t, http.MethodGet, "/rewards/"+catID(cash), nil); fmt.Sprint(c["customers"]) != fmt.Sprint([]any{ann.ID}) {
				t.Errorf("cashback targets %v", c["customers"])
			}
		})

		t.Run("the customer's rewards", func(t *testing.T) {
			for who, want := range map[string][]string{
				ann.ID: sortedOf(catID(free), catID(pct), catID(cash), catID(off)),
				bob.ID: sortedOf(catID(pct), catID(off)),
			} {
				l := a.catList(t, "/customers/"+who+"/rewards")
				if got := l.sortedIDs(); !slices.Equal(got, want) || l.Meta["total"] != float64(len(want)) {
					t.Errorf("%s may redeem %v (meta %v), want %v", who, got, l.Meta, want)
				}
			}
			if got := a.catList(t, "/customers/"+ann.ID+"/rewards?branch.id=eq|"+main).sortedIDs(); !slices.Equal(got,
				sortedOf(catID(free), catID(pct), catID(cash))) {
				t.Errorf("at the main branch Ann may redeem %v", got)
			}
			if p := a.catList(t, "/customers/"+ann.ID+"/rewards?per_page=1&page=2"); len(p.Data) != 1 || p.Meta["total"] != 4.0 ||
				p.Data[0]["type"] == nil {
				t.Errorf("page 2 of 1: %+v", p)
			}
			a.get(t, "/customers/"+ann.ID+"/rewards?branch.id=gt|x").wantError(t, http.StatusBadRequest, "branch.id")
			a.get(t, "/customers/0123456789abcdef0123456789abcdef/rewards").wantError(t, http.StatusNotFound)
		})

		t.Run("redeem a free product", func(t *testing.T) {
			a.redeemItem(t, bob.ID, catID(free), 1, "").wantFields(t, "catalog_items.0.id")
			d := a.redeemItem(t, ann.ID, catID(free), 2, "").dataOf(t)
			item := d["catalog_items"].([]any)[0].(map[string]any)
			if d["points"] != -100.0 || d["amount"] != 27.98 || d["giftcard"] != 0.0 || item["type_id"] != 15.0 || item["amount"] != 27.98 {
				t.Errorf("two free products: %v", d)
			}
		})

		t.Run("redeem a percentage", func(t *testing.T) {
			d := a.redeemItem(t, bob.ID, catID(pct), 1, "").dataOf(t)
			item := d["catalog_items"].([]any)[0].(map[string]any)
			if d["points"] != -50.0 || d["amount"] != 0.0 || item["discount_value"] != 10.0 || item["type"] != "redeem_discount_percentage" {
				t.Errorf("percentage: %v", d)
			}
		})

		t.Run("redeem a cashback into the gift card", func(t *testing.T) {
			a.redeemItem(t, bob.ID, catID(cash), 1, "").wantFields(t, "catalog_items.0.id")
			points, gift := a.balanceOf(t, ann.ID)
			d := a.redeemItem(t, ann.ID, catID(cash), 1, "").dataOf(t)
			if d["points"] != -50.0 || d["amount"] != 25.0 || d["giftcard"] != 25.0 {
				t.Errorf("cashback to gift card: %v", d)
			}
			wantType(t, d, 43) // a redemption of the catalog, whatever the item gives
			if p, g := a.balanceOf(t, ann.ID); p != points-50 || g != gift+25 {
				t.Errorf("balance %v points, %v gift card; want %v and %v", p, g, points-50, gift+25)
			}
			// The balance is the sum of the ledger.
			var l catPage
			a.get(t, "/customers/"+ann.ID+"/transactions?per_page=100").want(t, http.StatusOK).decode(t, &l)
			sumP, sumG := 0.0, 0.0
			for _, tx := range l.Data {
				sumP += tx["points"].(float64)
				sumG += tx["giftcard"].(float64)
			}
			if p, g := a.balanceOf(t, ann.ID); p != sumP || g != sumG {
				t.Errorf("balance %v/%v, ledger sums %v/%v", p, g, sumP, sumG)
			}
			// Cancelling the redemption takes the credit back.
			a.do(t, http.MethodDelete, "/transactions/"+catID(d), nil)
			if p, g := a.balanceOf(t, ann.ID); p != points || g != gift {
				t.Errorf("after cancelling: %v points, %v gift card; want %v and %v", p, g, points, gift)
			}
		})

		t.Run("redeem a cashback at its branch", func(t *testing.T) {
			a.redeemItem(t, bob.ID, catID(off), 1, main).wantFields(t, "catalog_items.0.id")
			a.redeemItem(t, bob.ID, catID(off), 1, "").wantFields(t, "catalog_items.0.id")
			d := a.redeemItem(t, bob.ID, catID(off), 1, down).dataOf(t)
			if d["amount"] != 5.0 || d["giftcard"] != 0.0 {
				t.Errorf("cashback off a purchase: %v", d)
			}
		})

		t.Run("publish_at", func(t *testing.T) {
			at := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Second)
			later := a.catData(t, http.MethodPost, "/rewards", map[string]any{"type_id": 18, "points": 1, "discount_value": 5,
				"publish_at": at.Format(time.RFC3339), "reward_languages": lang("Later")})
			if later["publish_at"] != at.Format("2006-01-02T15:04:05+00:00") {
				t.Errorf("publish_at %v", later["publish_at"])
			}
			a.redeemItem(t, bob.ID, catID(later), 1, "").wantFields(t, "catalog_items.0.id")
			e.db.Advance(3 * time.Hour)
			a.redeemItem(t, bob.ID, catID(later), 1, "").want(t, http.StatusOK)
		})

		t.Run("what the user API shows", func(t *testing.T) {
			app := e.userApp(t)
			u := e.register(t, e.biz.Key, map[string]any{"email": "cy@rewards.example", "pin_code": 1234})
			c := e.asUser(t, app, e.biz.Key, "cy@rewards.example", "1234")
			var rewards struct {
				Catalog []map[string]any `json:"catalog_items"`
			}
			c.get(t, "/users/me/rewards").want(t, http.StatusOK).data(t, &rewards)
			if got := idsOf(rewards.Catalog); slices.Contains(got, catID(cash)) || slices.Contains(got, catID(free)) ||
				!slices.Contains(got, catID(pct)) {
				t.Errorf("a customer neither targeted nor Gold sees %v", got)
			}
			a.catData(t, http.MethodPut, "/rewards/"+catID(cash), map[string]any{"customers": []string{ann.ID, u.ID}})
			c.get(t, "/users/me/rewards").want(t, http.StatusOK).data(t, &rewards)
			if !slices.Contains(idsOf(rewards.Catalog), catID(cash)) {
				t.Errorf("a new target does not see the reward: %v", idsOf(rewards.Catalog))
			}
		})

		t.Run("validation", func(t *testing.T) {
			post := func(kv ...any) *result {
				m := map[string]any{"type_id": 16, "points": 10, "amount": 5, "redeem_for_gift_card": false, "reward_languages": lang("x")}
				for i := 0; i < len(kv); i += 2 {
					if kv[i+1] == "-" {
						delete(m, kv[i].(string))
					} else {
						m[kv[i].(string)] = kv[i+1]
					}
				}
				return a.do(t, http.MethodPost, "/rewards", m)
			}
			post("type_id", 17).wantFields(t, "type_id")
			post("amount", "-").wantFields(t, "amount")
			post("amount", 0).wantFields(t, "amount")
			post("redeem_for_gift_card", "-").wantFields(t, "redeem_for_gift_card")
			post("type_id", 18, "amount", "-", "redeem_for_gift_card", "-").wantFields(t, "discount_value")
			post("type_id", 18, "amount", "-", "redeem_for_gift_card", "-", "discount_value", 101).wantFields(t, "discount_value")
			post("type_id", 15, "redeem_for_gift_card", "-").wantFields(t, "real_value", "amount")
			post("shipping_option", 1).wantFields(t, "shipping_option")
			post("targeted_flag", 2).wantFields(t, "redemption_user_tiers")
			post("targeted_flag", 2, "redemption_user_tiers", []map[string]any{{"id": 999999}}).wantFields(t, "redemption_user_tiers.0.id")
			post("targeted_flag", 0, "customers", []string{ann.ID}).wantFields(t, "customers")
			post("redemption_user_tiers", []map[string]any{{"id": levels[0]}}).wantFields(t, "redemption_user_tiers")
			post("targeted_flag", 5).wantFields(t, "targeted_flag")
			post("kind", "custom_reward").wantFields(t, "type_id")
			post("never_expires_flag", 0).wantFields(t, "expires_at")
			post("reward_languages", []map[string]any{{"language_id": 3, "title": "solo"}}).wantFields(t, "reward_languages")
			post("reward_languages", "-").wantFields(t, "title")
			post("available_at_branches", []map[string]any{}).wantFields(t, "available_at_branches")
			if l := a.catList(t, "/rewards"); l.catTotal() != 5 {
				t.Errorf("refused creates stored rewards: %v", l.catIDs())
			}
			// An update that changes the type needs the new type's value.
			a.do(t, http.MethodPut, "/rewards/"+catID(pct), map[string]any{"type_id": 15}).wantFields(t, "real_value")
			up := a.catData(t, http.MethodPut, "/rewards/"+catID(pct), map[string]any{"type_id": 15, "real_value": 4.5})
			if up["type_id"] != 15.0 || up["real_value"] != 4.5 || up["discount_value"] != 0.0 {
				t.Errorf("type changed: %v", up)
			}
		})
	})
}
