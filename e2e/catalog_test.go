package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// catPage is a collection body: a cursor and meta, or links and meta.
type catPage struct {
	Data   []map[string]any   `json:"data"`
	Cursor map[string]any     `json:"cursor"`
	Links  map[string]*string `json:"links"`
	Meta   map[string]any     `json:"meta"`
}

// catData sends a request that must answer 200 and returns its data object.
func (c *client) catData(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	var out struct{ Data map[string]any }
	c.do(t, method, path, body).want(t, http.StatusOK).decode(t, &out)
	if out.Data == nil {
		t.Fatalf("%s %s: no data object", method, path)
	}
	return out.Data
}

// catList gets one page of a collection that must answer 200.
func (c *client) catList(t *testing.T, path string) catPage {
	t.Helper()
	var p catPage
	c.get(t, path).want(t, http.StatusOK).decode(t, &p)
	return p
}

// catID returns the id of an object whose id is a JSON number, as a path.
func catID(m map[string]any) string {
	f, _ := m["id"].(float64)
	return fmt.Sprint(int64(f))
}

// catIDs returns the ids of a page's objects, in order.
func (p catPage) catIDs() []string {
	out := make([]string, len(p.Data))
	for i, m := range p.Data {
		if s, ok := m["id"].(string); ok {
			out[i] = s
		} else {
			out[i] = catID(m)
		}
	}
	return out
}

// catTotal is the page's meta.total.
func (p catPage) catTotal() int {
	f, _ := p.Meta["total"].(float64)
	return int(f)
}

// TestCatalogBranches covers GET and POST /branches.
func TestCatalogBranches(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)

		l := a.catList(t, "/branches")
		if l.catTotal() != 1 || len(l.Data) != 1 || l.Data[0]["name"] != "Corner Cafe" || l.Data[0]["web_site"] != nil {
			t.Fatalf("a new business lists %+v, want its main branch alone", l)
		}
		main := l.Data[0]["id"].(string)
		b := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": " Downtown ", "web_site": "https://down.example/cafe"})
		if !hexID.MatchString(b["id"].(string)) || b["name"] != "Downtown" || b["web_site"] != "https://down.example/cafe" {
			t.Errorf("created %v", b)
		}
		a.do(t, http.MethodPost, "/branches", map[string]any{}).wantFields(t, "name")
		a.do(t, http.MethodPost, "/branches", map[string]any{"name": "   "}).wantFields(t, "name")
		a.do(t, http.MethodPost, "/branches", map[string]any{"name": 5}).wantFields(t, "name")
		a.do(t, http.MethodPost, "/branches", map[string]any{"name": strings.Repeat("n", 201)}).wantFields(t, "name")
		a.do(t, http.MethodPost, "/branches", map[string]any{"name": "Ftp", "web_site": "ftp://x.example"}).wantFields(t, "web_site")
		a.do(t, http.MethodPost, "/branches", "{").wantError(t, http.StatusBadRequest)

		p1 := a.catList(t, "/branches?per_page=1")
		if p1.catTotal() != 2 || !slices.Equal(p1.catIDs(), []string{main}) || p1.Cursor["next"] != 2.0 ||
			p1.Cursor["next_uri"] != "branches?page=2&per_page=1" {
			t.Errorf("page 1: %+v", p1)
		}
		p2 := a.catList(t, "/branches?per_page=1&page=2")
		if !slices.Equal(p2.catIDs(), []string{b["id"].(string)}) || p2.Cursor["next"] != nil {
			t.Errorf("page 2: %+v", p2)
		}
		a.get(t, "/branches?name=eq|Downtown").wantError(t, http.StatusBadRequest, "name")
		a.get(t, "/branches?per_page=0").wantFields(t, "per_page")

		other := e.newBusiness(t, "Other Shop")
		o := e.owner(t, other)
		if ol := o.catList(t, "/branches"); ol.catTotal() != 1 || ol.Data[0]["name"] != "Other Shop" {
			t.Errorf("another business lists %+v", ol)
		}
	})
}

// TestCatalogOffers covers /offers: create with every field, validation
// per field, reads with the branch relationship, update, soft delete,
// the list and its filters, and the wall between businesses.
func TestCatalogOffers(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		main := a.catList(t, "/branches").Data[0]["id"].(string)
		down := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)
		cust := a.createCustomer(t, map[string]any{"email": "target@offers.example"})
		other := e.newBusiness(t, "Other Shop")
		b := e.owner(t, other)
		bMain := b.catList(t, "/branches").Data[0]["id"].(string)
		bCust := b.createCustomer(t, map[string]any{"email": "b@offers.example"})
		expires := time.Now().UTC().Add(30 * 24 * time.Hour).Truncate(time.Second)

		var pct map[string]any
		t.Run("create", func(t *testing.T) {
			before := time.Now().UTC().Truncate(time.Second)
			pct = a.catData(t, http.MethodPost, "/offers", map[string]any{
				"type_id": 9, "title": "15% off", "description": "Weekdays only", "discount_value": 15.5, "real_value": 20,
				"expires_at": expires.Format("2006-01-02T15:04:05-0700"), "branches": []string{down, down},
				"images": []map[string]any{{"path": "https://img.example/a.png"}, {"path": "http://img.example/b.png"}},
			})
			want := map[string]any{"type_id": 9.0, "type": "discount_percentage", "title": "15% off", "description": "Weekdays only",
				"discount_value": 15.5, "real_value": 20.0, "points": 0.0, "multip_factor": 0.0, "targeted": false, "convertible": false,
				"enabled": true, "expires_at": expires.Format("2006-01-02T15:04:05+00:00")}
			for k, v := range want {
				if pct[k] != v {
					t.Errorf("%s = %v, want %v", k, pct[k], v)
				}
			}
			if fmt.Sprint(pct["branches"]) != fmt.Sprint([]any{down}) || fmt.Sprint(pct["customers"]) != "[]" || pct["branch"] != nil {
				t.Errorf("branches %v, customers %v, branch %v", pct["branches"], pct["customers"], pct["branch"])
			}
			images := pct["images"].([]any)
			if len(images) != 2 || images[0].(map[string]any)["default"] != true || images[1].(map[string]any)["default"] != false {
				t.Errorf("images %v: want the first as default", images)
			}
			if s := parseTime(t, pct["starts_at"].(string)); s.Before(before) || s.After(time.Now().Add(time.Second)) {
				t.Errorf("starts_at %v, want now", s)
			}
			mult := a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 1, "title": "Double points", "multip_factor": 2.5})
			if mult["type"] != "points_multiplier" || mult["multip_factor"] != 2.5 || mult["expires_at"] != nil {
				t.Errorf("multiplier %v", mult)
			}
			conv := a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 8, "title": "Free coffee", "convertible": true,
				"targeted": true, "customers": []string{strings.ToUpper(cust.ID)}, "points": 30, "enabled": false})
			if conv["type"] != "free_product" || conv["convertible"] != true || fmt.Sprint(conv["customers"]) != fmt.Sprint([]any{cust.ID}) ||
				conv["enabled"] != false || conv["points"] != 30.0 {
				t.Errorf("targeted convertible %v", conv)
			}
			amt := a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 10, "title": "$5 off", "discount_value": 5})
			bonus := a.catData(t, http.MethodPost, "/offers", map[string]any{"type_id": 3, "title": "Bonus", "points": 50})
			if amt["type"] != "discount_amount" || bonus["type"] != "bonus_points" {
				t.Errorf("types %v, %v", amt["type"], bonus["type"])
			}
		})

		t.Run("create: validation", func(t *testing.T) {
			post := func(body map[string]any) *result {
				t.Helper()
				return a.do(t, http.MethodPost, "/offers", body)
			}
			ok := func(kv ...any) map[string]any {
				m := map[string]any{"type_id": 9, "title": "t", "discount_value": 10}
				for i := 0; i < len(kv); i += 2 {
					m[kv[i].(string)] = kv[i+1]
				}
				return m
			}
			post(map[string]any{}).wantFields(t, "type_id", "title")
			post(ok("type_id", 7)).wantFields(t, "type_id")
			post(ok("type_id", "9")).wantFields(t, "type_id")
			post(ok("title", "  ")).wantFields(t, "title")
			post(ok("title", strings.Repeat("x", 256))).wantFields(t, "title")
			post(ok("description", strings.Repeat("x", 1001))).wantFields(t, "description")
			post(ok("type_id", 1)).wantFields(t, "multip_factor")
			post(ok("type_id", 1, "multip_factor", 1)).wantFields(t, "multip_factor")
			post(ok("type_id", 1, "multip_factor", 1.255)).wantFields(t, "multip_factor")
			post(ok("type_id", 3)).wantFields(t, "points")
			post(ok("points", -1)).wantFields(t, "points")
			post(ok("discount_value", 100.01)).wantFields(t, "discount_value")
			post(ok("type_id", 10, "discount_value", 0)).wantFields(t, "discount_value")
			post(ok("real_value", -2)).wantFields(t, "real_value")
			post(ok("expires_at", "next week")).wantFields(t, "expires_at")
			post(ok("starts_at", "2030-01-02T00:00:00+00:00", "expires_at", "2030-01-01T00:00:00+00:00")).wantFields(t, "expires_at")
			post(ok("starts_at", nil)).wantFields(t, "starts_at")
			post(ok("images", []map[string]any{{"path": "ftp://img.example/a.png"}})).wantFields(t, "images.0.path")
			post(ok("images", []map[string]any{{"default": true}})).wantFields(t, "images.0.path")
			post(ok("images", []map[string]any{{"path": "https://i.example/1", "default": true}, {"path": "https://i.example/2", "default": true}})).wantFields(t, "images")
			post(ok("images", []map[string]any{{"path": "https://i.example/1"}, {"path": "https://i.example/2"}, {"path": "https://i.example/3"},
				{"path": "https://i.example/4"}, {"path": "https://i.example/5"}})).wantFields(t, "images")
			post(ok("branches", []string{"not-a-branch"})).wantFields(t, "branches.0")
			post(ok("branches", []string{main, bMain})).wantFields(t, "branches.1")
			post(ok("targeted", true)).wantFields(t, "customers")
			post(ok("customers", []string{cust.ID})).wantFields(t, "customers")
			post(ok("targeted", true, "customers", []string{bCust.ID})).wantFields(t, "customers.0")
			post(ok("type_id", 3, "points", 5, "convertible", true)).wantFields(t, "convertible")
			post(ok("enabled", nil)).wantFields(t, "enabled")
			a.do(t, http.MethodPost, "/offers", "not json").wantError(t, http.StatusBadRequest)
			if l := a.catList(t, "/offers?type_id=eq|9"); l.catTotal() != 1 {
				t.Errorf("invalid creates stored offers: %v", l.catIDs())
			}
		})

		t.Run("read with branch", func(t *testing.T) {
			got := a.catData(t, http.MethodGet, "/offers/"+catID(pct)+"?relationships=branch", nil)
			br, _ := got["branch"].(map[string]any)
			if got["title"] != "15% off" || br == nil || br["id"] != down || br["name"] != "Downtown" {
				t.Errorf("read %v", got)
			}
			l := a.catList(t, "/offers?relationships=branch&type_id=eq|1")
			if len(l.Data) != 1 || l.Data[0]["branch"].(map[string]any)["id"] != main {
				t.Errorf("an offer of every branch shows %v, want the main branch", l.Data)
			}
			a.get(t, "/offers/"+catID(pct)+"?relationships=customer").wantError(t, http.StatusBadRequest, "customer")
			a.get(t, "/offers/999999").wantError(t, http.StatusNotFound, "Offer")
			a.get(t, "/offers/abc").wantError(t, http.StatusBadRequest)
			a.get(t, "/offers/0").wantError(t, http.StatusBadRequest)
		})

		t.Run("list", func(t *testing.T) {
			all := a.catList(t, "/offers")
			if all.catTotal() != 5 || all.Cursor["count"] != 5.0 || all.Cursor["next"] != nil {
				t.Errorf("list: total %d, cursor %v", all.catTotal(), all.Cursor)
			}
			if l := a.catList(t, "/offers?type_id=in|8,10&per_page=1"); l.catTotal() != 2 || len(l.Data) != 1 || l.Cursor["next"] != 2.0 {
				t.Errorf("type_id=in|8,10 per_page=1: %+v", l)
			}
			a.get(t, "/offers?type_id=eq|x").wantError(t, http.StatusBadRequest, "type_id")
			a.get(t, "/offers?title=eq|x").wantError(t, http.StatusBadRequest, "title")
			a.get(t, "/offers?type_id=like|9").wantError(t, http.StatusBadRequest, "like")
			a.get(t, "/offers?per_page=101").wantFields(t, "per_page")
		})

		t.Run("update", func(t *testing.T) {
			up := a.catData(t, http.MethodPut, "/offers/"+catID(pct), map[string]any{"title": "20% off", "discount_value": 20,
				"expires_at": nil, "branches": []string{}})
			if up["title"] != "20% off" || up["discount_value"] != 20.0 || up["expires_at"] != nil || up["description"] != "Weekdays only" ||
				fmt.Sprint(up["branches"]) != "[]" || up["real_value"] != 20.0 || up["created_at"] != pct["created_at"] {
				t.Errorf("updated %v", up)
			}
			put := func(id string, body map[string]any) *result {
				t.Helper()
				return a.do(t, http.MethodPut, "/offers/"+id, body)
			}
			put(catID(pct), map[string]any{"type_id": 10}).wantFields(t, "type_id")
			put(catID(pct), map[string]any{"discount_value": 0}).wantFields(t, "discount_value")
			put(catID(pct), map[string]any{"title": nil}).wantFields(t, "title")
			put(catID(pct), map[string]any{"targeted": true}).wantFields(t, "customers")
			put("999999", map[string]any{"title": "x"}).wantError(t, http.StatusNotFound)
			put("x1", map[string]any{"title": "x"}).wantError(t, http.StatusBadRequest)
			if got := a.catData(t, http.MethodGet, "/offers/"+catID(pct), nil); got["title"] != "20% off" || got["discount_value"] != 20.0 {
				t.Errorf("failed updates changed the offer: %v", got)
			}
		})

		t.Run("other business", func(t *testing.T) {
			b.get(t, "/offers/"+catID(pct)).wantError(t, http.StatusNotFound)
			b.do(t, http.MethodPut, "/offers/"+catID(pct), map[string]any{"title": "mine"}).wantError(t, http.StatusNotFound)
			b.do(t, http.MethodDelete, "/offers/"+catID(pct), nil).wantError(t, http.StatusNotFound)
			if l := b.catList(t, "/offers"); l.catTotal() != 0 || len(l.Data) != 0 {
				t.Errorf("another business lists %v", l.catIDs())
			}
		})

		t.Run("delete", func(t *testing.T) {
			a.do(t, http.MethodDelete, "/offers/"+catID(pct), nil).want(t, http.StatusNoContent)
			a.get(t, "/offers/"+catID(pct)).wantError(t, http.StatusNotFound)
			a.do(t, http.MethodPut, "/offers/"+catID(pct), map[string]any{"title": "back"}).wantError(t, http.StatusNotFound)
			a.do(t, http.MethodDelete, "/offers/"+catID(pct), nil).wantError(t, http.StatusNotFound)
			if l := a.catList(t, "/offers"); l.catTotal() != 4 || slices.Contains(l.catIDs(), catID(pct)) {
				t.Errorf("deleted offer still listed: %v", l.catIDs())
			}
		})
	})
}
