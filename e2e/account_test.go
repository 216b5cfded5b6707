package e2e

import (
	"net/http"
	"regexp"
	"testing"
)

// hexID is the shape of opaque ids.
var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// account is the body of GET /me.
type account struct {
	Data struct {
		ID      string `json:"id"`
		Profile struct {
			ID       string  `json:"id"`
			Username *string `json:"username"`
			Email    string  `json:"email"`
		} `json:"profile"`
		Business struct {
			ID          string `json:"id"`
			Name        string `json:"name"`
			LoyaltyType string `json:"loyalty_type"`
		} `json:"business"`
	} `json:"data"`
	Included map[string][]map[string]any `json:"included"`
}

// TestAccount covers GET /me and its include list.
func TestAccount(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		b := e.biz
		owner := e.owner(t, b)

		t.Run("account", func(t *testing.T) {
			r := owner.get(t, "/me").want(t, http.StatusOK)
			var a account
			r.decode(t, &a)
			d := a.Data
			if d.ID != b.ID || d.Business.ID != b.ID || d.Business.Name != "Corner Cafe" || d.Business.LoyaltyType != "per_spend" {
				t.Errorf("business = %+v (id %s), want %s Corner Cafe per_spend", d.Business, d.ID, b.ID)
			}
			if d.Profile.ID != b.OwnerID || d.Profile.Email != b.Email {
				t.Errorf("profile = %+v, want owner %s %s", d.Profile, b.OwnerID, b.Email)
			}
			if _, ok := r.obj(t)["included"]; ok {
				t.Errorf("included without include: %s", r.Body)
			}
			// Another business sees its own account.
			other := e.newBusiness(t, "Bakery")
			var o account
			e.owner(t, other).get(t, "/me").want(t, http.StatusOK).decode(t, &o)
			if o.Data.ID != other.ID || o.Data.Business.LoyaltyType != "per_visit" || o.Data.Profile.Email != other.Email {
				t.Errorf("other account = %+v", o.Data)
			}
		})

		t.Run("include=branches has the main branch", func(t *testing.T) {
			var a account
			owner.get(t, "/me?include=branches").want(t, http.StatusOK).decode(t, &a)
			br := a.Included["branches"]
			if len(br) != 1 || br[0]["name"] != "Corner Cafe" || !hexID.MatchString(str(br[0]["id"])) {
				t.Fatalf("branches = %v, want the main branch", br)
			}
			if _, ok := a.Included["offers"]; ok {
				t.Errorf("offers included without being asked: %v", a.Included)
			}
		})

		t.Run("include=offers is empty", func(t *testing.T) {
			r := owner.get(t, "/me?include=offers").want(t, http.StatusOK)
			var a account
			r.decode(t, &a)
			if offers, ok := a.Included["offers"]; !ok || offers == nil || len(offers) != 0 {
				t.Errorf("included = %s, want offers: []", r.Body)
			}
		})

		t.Run("include lists the catalog", func(t *testing.T) {
			owner.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": "Bonus", "points": 5})
			owner.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "points": 90})
			owner.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "custom_reward", "title": "Hug", "points": 1})
			owner.catData(t, http.MethodPost, "/giftcards", map[string]any{"title": "Card", "discount_value": 25, "real_value": 20})
			var a account
			owner.get(t, "/me?include=offers,giftcards,catalog_items").want(t, http.StatusOK).decode(t, &a)
			if o := a.Included["offers"]; len(o) != 1 || o[0]["title"] != "Bonus" {
				t.Errorf("offers = %v", o)
			}
			if g := a.Included["giftcards"]; len(g) != 1 || g[0]["title"] != "Card" {
				t.Errorf("giftcards = %v", g)
			}
			if c := a.Included["catalog_items"]; len(c) != 1 || c[0]["title"] != "Mug" {
				t.Errorf("catalog_items = %v (custom rewards are not catalog items)", c)
			}
		})

		t.Run("every include at once", func(t *testing.T) {
			var a account
			owner.get(t, "/me?include=offers,products,giftcards,catalog_items,social_media,branches").want(t, http.StatusOK).decode(t, &a)
			for _, name := range []string{"offers", "products", "giftcards", "catalog_items", "social_media", "branches"} {
				if _, ok := a.Included[name]; !ok {
					t.Errorf("included lacks %s: %v", name, a.Included)
				}
			}
		})

		t.Run("unknown include", func(t *testing.T) {
			owner.get(t, "/me?include=coupons").wantError(t, http.StatusBadRequest, "coupons")
			owner.get(t, "/me?include=branches,bogus").wantError(t, http.StatusBadRequest, "bogus")
		})
	})
}
