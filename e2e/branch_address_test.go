package e2e

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestBranchAddress (issue 11 item 7): a branch carries an address in the
// reference platform's shape, set on create and update, and shown wherever
// the branch is.
func TestBranchAddress(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)

		main := a.catList(t, "/branches").Data[0]
		nothing := map[string]any{"formatted": nil, "city": nil, "region": nil, "country": nil, "lat": nil, "long": nil}
		if !reflect.DeepEqual(main["address"], nothing) {
			t.Errorf("a branch without an address shows %v, want every member null", main["address"])
		}
		addr := map[string]any{"formatted": "1060 Boulevard Robert-Bourassa", "city": "Montreal", "region": "Quebec",
			"country": "Canada", "lat": 45.485169, "long": -73.580989}
		b := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Retrorant", "address": addr})
		if !reflect.DeepEqual(b["address"], addr) {
			t.Errorf("created with address %v, want %v", b["address"], addr)
		}
		id := b["id"].(string)
		listed := func() map[string]any {
			t.Helper()
			for _, br := range a.catList(t, "/branches").Data {
				if br["id"] == id {
					return br
				}
			}
			t.Fatalf("branch %s not listed", id)
			return nil
		}
		if got := listed()["address"]; !reflect.DeepEqual(got, addr) {
			t.Errorf("GET /branches shows %v, want %v", got, addr)
		}

		// An update merges the address member by member.
		up := a.catData(t, http.MethodPut, "/branches/"+id, map[string]any{"address": map[string]any{"city": "Laval", "lat": 45.6}})
		want := map[string]any{"formatted": addr["formatted"], "city": "Laval", "region": "Quebec", "country": "Canada",
			"lat": 45.6, "long": addr["long"]}
		if !reflect.DeepEqual(up["address"], want) || up["name"] != "Retrorant" {
			t.Errorf("after the update %v, want name kept and address %v", up, want)
		}
		if got := listed()["address"]; !reflect.DeepEqual(got, want) {
			t.Errorf("GET /branches after the update shows %v", got)
		}
		var me struct {
			Included struct{ Branches []map[string]any } `json:"included"`
		}
		a.get(t, "/me?include=branches").want(t, http.StatusOK).decode(t, &me)
		for _, br := range me.Included.Branches {
			if br["id"] == id && !reflect.DeepEqual(br["address"], want) {
				t.Errorf("/me include=branches shows %v", br["address"])
			}
		}
		// The name and web site change too; null clears the address.
		cleared := a.catData(t, http.MethodPut, "/branches/"+id, map[string]any{"name": "Retro", "web_site": "https://retro.example", "address": nil})
		if cleared["name"] != "Retro" || cleared["web_site"] != "https://retro.example" || !reflect.DeepEqual(cleared["address"], nothing) {
			t.Errorf("after clearing: %v", cleared)
		}
		// The main branch can be given one.
		m := a.catData(t, http.MethodPut, "/branches/"+main["id"].(string), map[string]any{"address": map[string]any{"city": "Quebec"}})
		if ad, _ := m["address"].(map[string]any); ad["city"] != "Quebec" || m["name"] != "Corner Cafe" {
			t.Errorf("main branch: %v", m)
		}

		// Refusals name the field; nothing changes.
		put := func(body any) *result { t.Helper(); return a.do(t, http.MethodPut, "/branches/"+id, body) }
		put(map[string]any{"address": map[string]any{"lat": 91}}).wantFields(t, "address.lat")
		put(map[string]any{"address": map[string]any{"long": -180.5}}).wantFields(t, "address.long")
		put(map[string]any{"address": map[string]any{"city": strings.Repeat("c", 201)}}).wantFields(t, "address.city")
		put(map[string]any{"address": map[string]any{"lat": "north"}}).wantFields(t, "address.lat")
		put(map[string]any{"address": "1 Main St"}).wantFields(t, "address")
		put(map[string]any{"name": ""}).wantFields(t, "name")
		a.do(t, http.MethodPost, "/branches", map[string]any{"name": "X", "address": map[string]any{"formatted": 7}}).wantFields(t, "address.formatted")
		if got := listed(); got["name"] != "Retro" || !reflect.DeepEqual(got["address"], nothing) {
			t.Errorf("refused updates changed the branch: %v", got)
		}
		a.do(t, http.MethodPut, "/branches/0123456789abcdef0123456789abcdef", map[string]any{"name": "Ghost"}).wantError(t, http.StatusNotFound, "Branch")
		a.do(t, http.MethodPut, "/branches/not-an-id", map[string]any{"name": "Ghost"}).wantError(t, http.StatusBadRequest)
		o := e.owner(t, e.newBusiness(t, "Elsewhere"))
		o.do(t, http.MethodPut, "/branches/"+id, map[string]any{"name": "Mine"}).wantError(t, http.StatusNotFound)
	})
}
