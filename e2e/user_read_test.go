package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"
)

// made creates an object through the business API and returns its id.
func (c *client) made(t *testing.T, path string, body map[string]any) string {
	t.Helper()
	var out struct{ Data map[string]any }
	c.do(t, http.MethodPost, path, body).want(t, http.StatusOK).decode(t, &out)
	switch id := out.Data["id"].(type) {
	case float64:
		return fmt.Sprint(int64(id))
	case string:
		return id
	}
	t.Fatalf("POST %s: no id in %v", path, out.Data)
	return ""
}

// reward gives a customer points through the business API.
func (c *client) reward(t *testing.T, customerID string, points int) {
	t.Helper()
	c.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": points,
		"customer": map[string]any{"id": customerID}}).want(t, http.StatusOK)
}

// idsOf returns the sorted ids of a list of objects.
func idsOf(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, m := range list {
		switch id := m["id"].(type) {
		case float64:
			out[i] = fmt.Sprint(int64(id))
		case string:
			out[i] = id
		}
	}
	sort.Strings(out)
	return out
}

func sorted(ids ...string) []string {
	sort.Strings(ids)
	return ids
}

// TestUserReads covers what a user sees of a business: offers, coupons,
// gift cards, rewards, the business itself and the includes of the user.
func TestUserReads(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.userApp(t)
		owner := e.owner(t, e.biz)
		u := e.register(t, e.biz.Key, map[string]any{"email": "reader@example.com", "pin_code": 1234})
		c := e.asUser(t, app, e.biz.Key, "reader@example.com", "1234")
		someone := owner.createCustomer(t, map[string]any{"email": "someone@example.com"})
		owner.reward(t, u.ID, 100)

		bonus := owner.made(t, "/offers", map[string]any{"type_id": 3, "title": "Bonus", "points": 10})
		percent := owner.made(t, "/offers", map[string]any{"type_id": 9, "title": "10% off", "discount_value": 10})
		forSomeone := owner.made(t, "/offers", map[string]any{"type_id": 8, "title": "Free muffin", "targeted": true, "customers": []string{someone.ID}})
		forUser := owner.made(t, "/offers", map[string]any{"type_id": 8, "title": "Free cake", "targeted": true, "customers": []string{u.ID}})
		owner.made(t, "/offers", map[string]any{"type_id": 9, "title": "Off", "discount_value": 10, "enabled": false})
		mug := owner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 20})
		cake := owner.made(t, "/rewards", map[string]any{"kind": "custom_reward", "title": "Cake", "points": 1})
		owner.made(t, "/rewards", map[string]any{"kind": "catalog_item", "title": "Gone", "points": 5, "enabled": false})
		card := owner.made(t, "/giftcards", map[string]any{"title": "$50", "discount_value": 50, "real_value": 45})
		offCard := owner.made(t, "/giftcards", map[string]any{"title": "Off", "discount_value": 5, "real_value": 5, "enabled": false})

		t.Run("offers", func(t *testing.T) {
			var list []map[string]any
			c.get(t, "/users/me/offers?relationships=branch").want(t, http.StatusOK).data(t, &list)
			if got := idsOf(list); !slices.Equal(got, sorted(bonus, percent, forUser)) {
				t.Errorf("offers %v, want bonus, 10%% off and the one targeted at the user", got)
			}
			for _, o := range list {
				if o["branch"] == nil {
					t.Errorf("offer %v has no branch", o["id"])
				}
			}
			var one map[string]any
			c.get(t, "/users/"+u.ID+"/offers/"+percent).want(t, http.StatusOK).data(t, &one)
			if one["title"] != "10% off" || len(one["actions"].([]any)) != 1 || one["branch"] != nil {
				t.Errorf("offer %v", one)
			}
			c.get(t, "/users/me/offers/"+forSomeone).wantError(t, http.StatusNotFound)
			c.get(t, "/users/me/offers/999999").wantError(t, http.StatusNotFound)
			c.get(t, "/users/me/offers/abc").wantUserError(t)
			c.get(t, "/users/me/offers?relationships=owner").wantUserError(t)
		})

		t.Run("a coupon shows on the offer and in the include", func(t *testing.T) {
			owner.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "get_coupon",
				"customer": map[string]any{"id": u.ID}, "offer": map[string]any{"id": atoi(t, percent)}}).want(t, http.StatusOK)
			var one map[string]any
			c.get(t, "/users/me/offers/"+percent).want(t, http.StatusOK).data(t, &one)
			if one["coupon_type_id"] != float64(74) {
				t.Errorf("offer after get_coupon: %v", one)
			}
			var out struct{ Included map[string][]map[string]any }
			c.get(t, "/users/me?include=coupons").want(t, http.StatusOK).decode(t, &out)
			if cs := out.Included["coupons"]; len(cs) != 1 || cs[0]["coupon_type_id"] != float64(74) {
				t.Errorf("coupons %v", cs)
			}
		})

		t.Run("gift cards and rewards", func(t *testing.T) {
			var list []map[string]any
			c.get(t, "/users/me/giftcards?relationships=branch").want(t, http.StatusOK).data(t, &list)
			if got := idsOf(list); !slices.Equal(got, []string{card}) || list[0]["branch"] == nil || list[0]["type"] != "giftcard" {
				t.Errorf("gift cards %v", list)
			}
			var one map[string]any
			c.get(t, "/users/me/giftcards/"+card).want(t, http.StatusOK).data(t, &one)
			if one["discount_value"] != float64(50) || one["real_value"] != float64(45) {
				t.Errorf("gift card %v", one)
			}
			c.get(t, "/users/me/giftcards/"+offCard).wantError(t, http.StatusNotFound)
			c.get(t, "/users/me/giftcards/x").wantUserError(t)
			var rewards struct {
				Custom  []map[string]any `json:"custom_rewards"`
				Catalog []map[string]any `json:"catalog_items"`
			}
			c.get(t, "/users/me/rewards").want(t, http.StatusOK).data(t, &rewards)
			if !slices.Equal(idsOf(rewards.Custom), []string{cake}) || !slices.Equal(idsOf(rewards.Catalog), []string{mug}) {
				t.Errorf("rewards %v / %v", rewards.Custom, rewards.Catalog)
			}
		})

		t.Run("the business, and every include of the user", func(t *testing.T) {
			var list []map[string]any
			c.get(t, "/users/me/businesses").want(t, http.StatusOK).data(t, &list)
			if len(list) != 0 {
				t.Errorf("a business key lists businesses %v", list)
			}
			var b struct {
				Data     map[string]any
				Included map[string][]map[string]any
			}
			c.get(t, "/users/me/businesses/"+e.biz.ID+"?include=offers,products,giftcards,catalog_items,social_media,branches").
				want(t, http.StatusOK).decode(t, &b)
			if b.Data["name"] != "Corner Cafe" || len(b.Included["branches"]) != 1 || !slices.Equal(idsOf(b.Included["giftcards"]), []string{card}) ||
				!slices.Equal(idsOf(b.Included["catalog_items"]), []string{mug}) || len(b.Included["offers"]) != 3 ||
				b.Included["products"] == nil || b.Included["social_media"] == nil {
				t.Errorf("business %v, included %v", b.Data, b.Included)
			}
			other := e.newBusiness(t, "Elsewhere")
			c.get(t, "/users/me/businesses/"+other.ID).wantError(t, http.StatusNotFound)
			c.get(t, "/users/me/businesses/nope").wantUserError(t)

			var all struct{ Included map[string]any }
			c.get(t, "/users/me?include=businesses,branches,catalog_items,offers,coupons,giftcards,products,social_media,coalition,balance,user_emails,user_phone_numbers").
				want(t, http.StatusOK).decode(t, &all)
			in := all.Included
			if bal := in["balance"].(map[string]any); bal["points"] != float64(100) {
				t.Errorf("balance %v", bal)
			}
			if in["coalition"] != nil || len(in["businesses"].([]any)) != 1 || len(in["user_phone_numbers"].([]any)) != 0 {
				t.Errorf("included %v", in)
			}
			if bs := in["businesses"].([]any); bs[0].(map[string]any)["balance"] != nil {
				t.Errorf("a business key's business carries a balance: %v", bs[0])
			}
		})
	})
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// coalitionBusiness creates a member business of a coalition through the
// admin CLI.
func (e *env) coalitionBusiness(t *testing.T, name, coalitionID string) *business {
	t.Helper()
	b := &business{Email: "owner-" + e.unique() + "@coalition.example", Password: "s3cret-pass-" + e.unique()}
	out := e.admin(t, "admin", "business", "create", "--name", name, "--loyalty-type", "per_spend",
		"--owner-email", b.Email, "--owner-password", b.Password, "--coalition", coalitionID)
	b.ID, b.Key, b.OwnerID = str(out["business_id"]), str(out["application_key"]), str(out["owner_id"])
	return b
}

// TestUserCoalition covers a user of a coalition key: a customer of every
// member, balances per business and cumulated, the member businesses and
// what each offers.
func TestUserCoalition(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		app := e.userApp(t)
		co := e.admin(t, "admin", "coalition", "create", "--name", "Main Street")
		coID, coKey := str(co["coalition_id"]), str(co["application_key"])
		bakery := e.coalitionBusiness(t, "Bakery", coID)
		books := e.coalitionBusiness(t, "Books", coID)
		bakeryOwner, booksOwner := e.owner(t, bakery), e.owner(t, books)
		booksOwner.do(t, http.MethodPatch, "/rules", map[string]any{"earning": map[string]any{"welcome_points": 5}}).want(t, http.StatusOK)

		u := e.register(t, coKey, map[string]any{"email": "member@example.com", "first_name": "Mia"})
		welcome := e.waitMessage(t, "member@example.com", 1)
		if welcome.Subject != "Welcome to Main Street" {
			t.Errorf("welcome subject %q", welcome.Subject)
		}
		c := e.asUser(t, app, coKey, "member@example.com", welcome.line(t, "PIN"))
		for _, o := range []*client{bakeryOwner, booksOwner} {
			if got := o.get(t, "/customers/"+u.ID).want(t, http.StatusOK).customer(t); deref(got.FirstName) != "Mia" {
				t.Errorf("customer %+v", got)
			}
		}
		bakeryOwner.reward(t, u.ID, 50)
		booksOwner.reward(t, u.ID, 30)
		bread := bakeryOwner.made(t, "/offers", map[string]any{"type_id": 3, "title": "Bread bonus", "points": 5})
		novel := booksOwner.made(t, "/offers", map[string]any{"type_id": 9, "title": "10% off novels", "discount_value": 10})
		bookCard := booksOwner.made(t, "/giftcards", map[string]any{"title": "$20", "discount_value": 20, "real_value": 20})

		t.Run("balances per business and cumulated", func(t *testing.T) {
			var out struct {
				Included struct {
					Balance    map[string]float64
					Businesses []map[string]any
					Coalition  map[string]string
				}
			}
			c.get(t, "/users/me?include=balance,businesses,coalition").want(t, http.StatusOK).decode(t, &out)
			in := out.Included
			if in.Balance["points"] != 85 || in.Coalition["id"] != coID || in.Coalition["name"] != "Main Street" {
				t.Errorf("balance %v, coalition %v", in.Balance, in.Coalition)
			}
			points := map[string]float64{}
			for _, b := range in.Businesses {
				points[b["id"].(string)] = b["balance"].(map[string]any)["points"].(float64)
			}
			if points[bakery.ID] != 50 || points[books.ID] != 35 {
				t.Errorf("per business %v", points)
			}
		})

		t.Run("the member businesses and what they offer", func(t *testing.T) {
			var list []map[string]any
			c.get(t, "/users/me/businesses").want(t, http.StatusOK).data(t, &list)
			if got := idsOf(list); !slices.Equal(got, sorted(bakery.ID, books.ID)) {
				t.Errorf("businesses %v", got)
			}
			var one map[string]any
			c.get(t, "/users/me/businesses/"+books.ID).want(t, http.StatusOK).data(t, &one)
			if one["name"] != "Books" || one["loyalty_type"] != "per_spend" {
				t.Errorf("business %v", one)
			}
			c.get(t, "/users/me/offers").want(t, http.StatusOK).data(t, &list)
			if got := idsOf(list); !slices.Equal(got, sorted(bread, novel)) {
				t.Errorf("offers %v", got)
			}
			c.get(t, "/users/me/offers/"+novel).want(t, http.StatusOK)
			c.get(t, "/users/me/giftcards/"+bookCard).want(t, http.StatusOK)
			// One business's key opens that business only.
			e.userLogin(t, app, bakery.Key, "member@example.com", welcome.line(t, "PIN")).want(t, http.StatusOK)
			(&client{e: e, key: bakery.Key, token: c.token}).get(t, "/users/me").wantError(t, http.StatusForbidden)
		})
	})
}
