package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestCatalogRewards covers /rewards: catalog items and custom rewards,
// validation per field, the kind filter, update, soft delete and the wall
// between businesses.
func TestCatalogRewards(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		b := e.owner(t, e.newBusiness(t, "Other Shop"))

		item := a.catData(t, http.MethodPost, "/rewards", map[string]any{"kind": "catalog_item", "title": "Mug", "description": "A mug",
			"points": 500, "partner_reward": true, "expires_at": "2031-01-01T00:00:00Z",
			"images": []map[string]any{{"path": "https://img.example/mug.png", "default": true}}})
		want := map[string]any{"kind": "catalog_item", "title": "Mug", "description": "A mug", "points": 500.0, "partner_reward": true,
			"expires_at": "2031-01-01T00:00:00+00:00", "enabled": true}
		for k, v := range want {
			if item[k] != v {
				t.Errorf("%s = %v, want %v", k, item[k], v)
			}
		}
		custom := a.catData(t, http.MethodPost, "/rewards", map[string]any{"type": "custom_reward", "title": "Birthday cake", "points": 1})
		if custom["kind"] != "custom_reward" || custom["partner_reward"] != false || custom["expires_at"] != nil || fmt.Sprint(custom["images"]) != "[]" {
			t.Errorf("custom reward %v", custom)
		}

		t.Run("validation", func(t *testing.T) {
			post := func(body map[string]any) *result {
				t.Helper()
				return a.do(t, http.MethodPost, "/rewards", body)
			}
			post(map[string]any{}).wantFields(t, "kind", "title", "points")
			post(map[string]any{"kind": "coupon", "title": "x", "points": 1}).wantFields(t, "kind")
			post(map[string]any{"type": "coupon", "title": "x", "points": 1}).wantFields(t, "type")
			post(map[string]any{"kind": "catalog_item", "title": "x", "points": 0}).wantFields(t, "points")
			post(map[string]any{"kind": "catalog_item", "title": "x", "points": "ten"}).wantFields(t, "points")
			post(map[string]any{"kind": "catalog_item", "title": "x", "points": 1.5}).wantFields(t, "points")
			post(map[string]any{"kind": "catalog_item", "title": "", "points": 1}).wantFields(t, "title")
			post(map[string]any{"kind": "catalog_item", "title": "x", "points": 1, "expires_at": "2031-13-01"}).wantFields(t, "expires_at")
			post(map[string]any{"kind": "catalog_item", "title": "x", "points": 1, "partner_reward": "yes"}).wantFields(t, "partner_reward")
			post(map[string]any{"kind": "catalog_item", "title": "x", "points": 1, "images": []map[string]any{{"path": "img.png"}}}).
				wantFields(t, "images.0.path")
			if l := a.catList(t, "/rewards"); l.catTotal() != 2 {
				t.Errorf("invalid creates stored rewards: %v", l.catIDs())
			}
		})

		t.Run("list by kind", func(t *testing.T) {
			for query, ids := range map[string][]string{
				"":                                    {catID(item), catID(custom)},
				"?kind=eq|catalog_item":               {catID(item)},
				"?kind=custom_reward":                 {catID(custom)},
				"?kind=in|catalog_item,custom_reward": {catID(item), catID(custom)},
				"?kind=not_in|catalog_item":           {catID(custom)},
				"?per_page=1&page=2":                  {catID(custom)},
			} {
				if l := a.catList(t, "/rewards"+query); !slices.Equal(l.catIDs(), ids) {
					t.Errorf("/rewards%s = %v, want %v", query, l.catIDs(), ids)
				}
			}
			a.get(t, "/rewards?kind=eq|coupon").wantError(t, http.StatusBadRequest, "kind")
			a.get(t, "/rewards?kind=gt|catalog_item").wantError(t, http.StatusBadRequest, "kind")
			a.get(t, "/rewards?points=eq|1").wantError(t, http.StatusBadRequest, "points")
		})

		t.Run("read, update, delete", func(t *testing.T) {
			if got := a.catData(t, http.MethodGet, "/rewards/"+catID(item), nil); got["title"] != "Mug" || got["points"] != 500.0 {
				t.Errorf("read %v", got)
			}
			up := a.catData(t, http.MethodPut, "/rewards/"+catID(item), map[string]any{"points": 750, "enabled": false, "expires_at": nil})
			if up["points"] != 750.0 || up["enabled"] != false || up["expires_at"] != nil || up["title"] != "Mug" || up["kind"] != "catalog_item" {
				t.Errorf("updated %v", up)
			}
			a.do(t, http.MethodPut, "/rewards/"+catID(item), map[string]any{"points": -1}).wantFields(t, "points")
			a.do(t, http.MethodPut, "/rewards/"+catID(item), map[string]any{"kind": "gift"}).wantFields(t, "kind")
			a.do(t, http.MethodPut, "/rewards/424242", map[string]any{"points": 1}).wantError(t, http.StatusNotFound)
			a.get(t, "/rewards/424242").wantError(t, http.StatusNotFound, "Reward")
			a.get(t, "/rewards/-3").wantError(t, http.StatusBadRequest)

			b.get(t, "/rewards/"+catID(item)).wantError(t, http.StatusNotFound)
			b.do(t, http.MethodDelete, "/rewards/"+catID(item), nil).wantError(t, http.StatusNotFound)
			if l := b.catList(t, "/rewards"); l.catTotal() != 0 {
				t.Errorf("another business lists %v", l.catIDs())
			}

			a.do(t, http.MethodDelete, "/rewards/"+catID(custom), nil).want(t, http.StatusNoContent)
			a.get(t, "/rewards/"+catID(custom)).wantError(t, http.StatusNotFound)
			a.do(t, http.MethodDelete, "/rewards/"+catID(custom), nil).wantError(t, http.StatusNotFound)
			if l := a.catList(t, "/rewards"); !slices.Equal(l.catIDs(), []string{catID(item)}) {
				t.Errorf("after delete the list is %v", l.catIDs())
			}
		})
	})
}

// TestCatalogGiftcards covers /giftcards: create, validation per field,
// the branch relationship, update, soft delete and the wall between
// businesses.
func TestCatalogGiftcards(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		b := e.owner(t, e.newBusiness(t, "Other Shop"))
		down := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)

		g := a.catData(t, http.MethodPost, "/giftcards?relationships=branch", map[string]any{"title": "Gift card $50",
			"description": "Any branch", "discount_value": 50, "real_value": 45.99, "points": 10, "multip_factor": 1.5,
			"branches": []string{down}})
		want := map[string]any{"type": "giftcard", "title": "Gift card $50", "description": "Any branch", "discount_value": 50.0,
			"real_value": 45.99, "points": 10.0, "multip_factor": 1.5, "enabled": true, "expires_at": nil}
		for k, v := range want {
			if g[k] != v {
				t.Errorf("%s = %v, want %v", k, g[k], v)
			}
		}
		if br, _ := g["branch"].(map[string]any); br == nil || br["id"] != down || fmt.Sprint(g["branches"]) != fmt.Sprint([]any{down}) {
			t.Errorf("branch %v, branches %v", g["branch"], g["branches"])
		}

		post := func(body map[string]any) *result {
			t.Helper()
			return a.do(t, http.MethodPost, "/giftcards", body)
		}
		post(map[string]any{}).wantFields(t, "title", "discount_value", "real_value")
		post(map[string]any{"title": "x", "discount_value": 0, "real_value": 1}).wantFields(t, "discount_value")
		post(map[string]any{"title": "x", "discount_value": 10, "real_value": -1}).wantFields(t, "real_value")
		post(map[string]any{"title": "x", "discount_value": 10.005, "real_value": 1}).wantFields(t, "discount_value")
		post(map[string]any{"title": "x", "discount_value": "10", "real_value": 1}).wantFields(t, "discount_value")
		post(map[string]any{"title": "x", "discount_value": 10, "real_value": 1, "points": -5}).wantFields(t, "points")
		post(map[string]any{"title": "x", "discount_value": 10, "real_value": 1, "branches": []string{strings.Repeat("a", 32)}}).
			wantFields(t, "branches.0")
		post(map[string]any{"title": "x", "discount_value": 10, "real_value": 1, "expires_at": 5}).wantFields(t, "expires_at")

		plain := a.catData(t, http.MethodPost, "/giftcards", map[string]any{"title": "Gift card $20", "discount_value": 20, "real_value": 20})
		if l := a.catList(t, "/giftcards?relationships=branch"); !slices.Equal(l.catIDs(), []string{catID(g), catID(plain)}) ||
			l.Data[1]["branch"].(map[string]any)["id"] == down {
			t.Errorf("list %v: want both cards, the second at the main branch", l.Data)
		}
		a.get(t, "/giftcards?relationships=offers").wantError(t, http.StatusBadRequest, "offers")
		a.get(t, "/giftcards?title=eq|x").wantError(t, http.StatusBadRequest, "title")

		up := a.catData(t, http.MethodPut, "/giftcards/"+catID(g), map[string]any{"real_value": 40, "branches": nil, "enabled": false})
		if up["real_value"] != 40.0 || up["discount_value"] != 50.0 || fmt.Sprint(up["branches"]) != "[]" || up["enabled"] != false || up["branch"] != nil {
			t.Errorf("updated %v", up)
		}
		a.do(t, http.MethodPut, "/giftcards/"+catID(g), map[string]any{"discount_value": 0}).wantFields(t, "discount_value")
		a.do(t, http.MethodPut, "/giftcards/777777", map[string]any{"title": "x"}).wantError(t, http.StatusNotFound)
		a.get(t, "/giftcards/777777").wantError(t, http.StatusNotFound, "Gift card")
		a.get(t, "/giftcards/1.5").wantError(t, http.StatusBadRequest)

		b.get(t, "/giftcards/"+catID(g)).wantError(t, http.StatusNotFound)
		b.do(t, http.MethodPut, "/giftcards/"+catID(g), map[string]any{"title": "mine"}).wantError(t, http.StatusNotFound)
		if l := b.catList(t, "/giftcards"); l.catTotal() != 0 {
			t.Errorf("another business lists %v", l.catIDs())
		}

		a.do(t, http.MethodDelete, "/giftcards/"+catID(g), nil).want(t, http.StatusNoContent)
		a.get(t, "/giftcards/"+catID(g)).wantError(t, http.StatusNotFound)
		a.do(t, http.MethodDelete, "/giftcards/"+catID(g), nil).wantError(t, http.StatusNotFound)
		if l := a.catList(t, "/giftcards"); !slices.Equal(l.catIDs(), []string{catID(plain)}) {
			t.Errorf("after delete the list is %v", l.catIDs())
		}
	})
}
