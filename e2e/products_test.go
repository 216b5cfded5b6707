package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
)

// TestReferenceProducts replays rest_products.apib's create example (its
// branch ids replaced by the business's own) and reads the product back
// as the reference shows it; then what a back office does with products:
// categories and tags, SKUs that name one live product, updates, deletes,
// refusals named by field, and the wall between businesses.
func TestReferenceProducts(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		main := a.catList(t, "/branches").Data[0]["id"].(string)
		down := a.catData(t, http.MethodPost, "/branches", map[string]any{"name": "Downtown"})["id"].(string)

		example := `{
		    "promote_flag": 1,
		    "product_sku": "AB1234",
		    "product_actual_price": 10.50,
		    "product_real_price": 10.50,
		    "product_languages": [{"language_id": 1, "product_title": "Product A", "product_description": "Product A description.",
		        "product_terms_conditions": "Product A terms and conditions.", "product_link": "https://example.com/some-product-link"}],
		    "available_at_branches": [{"id": "` + main + `"}, {"id": "` + down + `"}],
		    "images": [{"original": "https://www.kangaroorewards.com/photos/image.png",
		        "large": "https://www.kangaroorewards.com/photos/image1.png",
		        "medium": "https://www.kangaroorewards.com/photos/image2.png",
		        "thumbnail": "https://www.kangaroorewards.com/photos/image3.png"}]
		}`
		p := a.replay(t, "POST", "/products", example).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, p, "title", "Product A", "description", "Product A description.", "product_sku", "AB1234",
			"actual_price", 10.5, "real_price", 10.5, "terms_conditions", "Product A terms and conditions.",
			"link", "https://example.com/some-product-link", "promote_flag", 1.0, "category_id", nil,
			"product_languages.0.language_id", 1.0, "product_languages.0.title", "Product A",
			"product_languages.0.language.abbreviation", "en", "product_languages.0.language.name", "English",
			"images.0.large", "https://www.kangaroorewards.com/photos/image1.png")
		if fmt.Sprint(p["branches"]) != fmt.Sprint([]any{main, down}) && fmt.Sprint(p["branches"]) != fmt.Sprint([]any{down, main}) {
			t.Errorf("branches %v, want the two sent", p["branches"])
		}
		id := catID(p)
		wantAt(t, a.replay(t, "GET", "/products", "").want(t, http.StatusOK).obj(t), "data.0.product_sku", "AB1234")
		wantAt(t, a.catData(t, http.MethodGet, "/products/"+id, nil), "title", "Product A", "product_sku", "AB1234")

		// A category and tags; our own title; a filter by SKU and category.
		cat := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": " Pastries "})
		wantAt(t, cat, "name", "Pastries")
		croissant := a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Croissant", "product_sku": "CR-01",
			"product_actual_price": 2.40, "category_id": cat["id"], "tags": []string{"bakery", " Vegan ", "bakery"}})
		wantAt(t, croissant, "category_id", cat["id"], "promote_flag", 0.0)
		if fmt.Sprint(croissant["tags"]) != "[bakery Vegan]" {
			t.Errorf("tags %v, want [bakery Vegan]", croissant["tags"])
		}
		if l := a.catList(t, "/products?category_id=eq|"+catID(cat)); l.catTotal() != 1 || l.Data[0]["product_sku"] != "CR-01" {
			t.Errorf("by category: %+v", l)
		}
		if l := a.catList(t, "/products?product_sku=eq|AB1234"); l.catTotal() != 1 || catID(l.Data[0]) != id {
			t.Errorf("by SKU: %+v", l)
		}

		// Refusals name their field and write nothing.
		for field, body := range map[string]map[string]any{
			"product_sku":           {"title": "Dup", "product_sku": "AB1234"},
			"title":                 {"product_sku": "NT-1"},
			"product_actual_price":  {"title": "x", "product_actual_price": -1},
			"category_id":           {"title": "x", "category_id": 999999},
			"promote_flag":          {"title": "x", "promote_flag": 2},
			"tags.0":                {"title": "x", "tags": []string{" "}},
			"available_at_branches": {"title": "x", "available_at_branches": []any{}},
		} {
			a.do(t, http.MethodPost, "/products", body).wantFields(t, field)
		}
		a.do(t, http.MethodPost, "/products", map[string]any{"title": "x", "product_sku": "ab"}).wantFields(t, "product_sku")
		a.do(t, http.MethodPost, "/products", map[string]any{"title": "x", "product_real_price": "1"}).wantFields(t, "product_real_price")
		a.do(t, http.MethodPost, "/products", map[string]any{"title": "x", "product_languages": []map[string]any{{"language_id": 9}}}).
			wantFields(t, "product_languages.0.language_id")
		if l := a.catList(t, "/products"); l.catTotal() != 2 {
			t.Fatalf("after the refusals %d products, want 2", l.catTotal())
		}

		// PUT changes what it sends; a SKU moves only to a free one.
		up := a.catData(t, http.MethodPut, "/products/"+id, map[string]any{"product_actual_price": 9.90, "category_id": cat["id"]})
		wantAt(t, up, "actual_price", 9.9, "real_price", 10.5, "title", "Product A", "category_id", cat["id"])
		a.do(t, http.MethodPut, "/products/"+id, map[string]any{"product_sku": "CR-01"}).wantFields(t, "product_sku")
		a.do(t, http.MethodPut, "/products/abc", map[string]any{}).wantError(t, http.StatusBadRequest)
		a.do(t, http.MethodPut, "/products/999999", map[string]any{}).wantError(t, http.StatusNotFound)

		// Deleting the category uncategorises its products; deleting a
		// product frees its SKU.
		a.do(t, http.MethodDelete, "/product-categories/"+catID(cat), nil).want(t, http.StatusNoContent)
		if got := a.catData(t, http.MethodGet, "/products/"+id, nil)["category_id"]; got != nil {
			t.Errorf("a product of a deleted category has category_id %v", got)
		}
		a.get(t, "/product-categories/"+catID(cat)).wantError(t, http.StatusNotFound)
		a.do(t, http.MethodDelete, "/products/"+catID(croissant), nil).want(t, http.StatusNoContent)
		a.get(t, "/products/"+catID(croissant)).wantError(t, http.StatusNotFound)
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Croissant again", "product_sku": "CR-01"})

		// Another business sees none of it and may use the same SKUs.
		o := e.owner(t, e.newBusiness(t, "Other Shop"))
		if l := o.catList(t, "/products"); l.catTotal() != 0 {
			t.Errorf("another business lists %d products", l.catTotal())
		}
		o.get(t, "/products/"+id).wantError(t, http.StatusNotFound)
		o.catData(t, http.MethodPost, "/products", map[string]any{"title": "Theirs", "product_sku": "AB1234"})
	})
}

// TestProductBatch: POST /products/batch creates or updates up to 1,000
// products by SKU in one transaction; one refusal, named by its place,
// refuses the whole batch.
func TestProductBatch(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Old name", "product_sku": "SKU-0001", "tags": []string{"keep"}})

		items := make([]map[string]any, 1000)
		for i := range items {
			items[i] = map[string]any{"product_sku": fmt.Sprintf("SKU-%04d", i+1), "title": fmt.Sprintf("Item %d", i+1),
				"product_actual_price": 1.25}
		}
		var out struct {
			Data []map[string]any
			Meta map[string]float64
		}
		// The batch's correctness is checked here, its speed by benchmarks:
		// under the race detector on a loaded machine, a thousand products
		// through the pure-Go SQLite take longer than the harness's 30 s.
		slow := *e
		slow.http = &http.Client{Timeout: 5 * time.Minute, CheckRedirect: e.http.CheckRedirect}
		batch := &client{e: &slow, key: a.key, token: a.token}
		batch.do(t, http.MethodPost, "/products/batch", map[string]any{"products": items}).want(t, http.StatusOK).decode(t, &out)
		if len(out.Data) != 1000 || out.Meta["created"] != 999 || out.Meta["updated"] != 1 {
			t.Fatalf("batch: %d products, meta %v; want 1000, 999 created and 1 updated", len(out.Data), out.Meta)
		}
		first := out.Data[0]
		wantAt(t, first, "product_sku", "SKU-0001", "title", "Item 1", "actual_price", 1.25)
		if fmt.Sprint(first["tags"]) != "[keep]" {
			t.Errorf("the updated product's tags %v: a batch changes only the fields sent", first["tags"])
		}
		if l := a.catList(t, "/products?per_page=1"); l.catTotal() != 1000 {
			t.Fatalf("%d products after the batch, want 1000", l.catTotal())
		}

		// One bad product refuses the batch; nothing of it is written.
		bad := []map[string]any{{"product_sku": "NEW-1", "title": "New"}, {"product_sku": "NEW-2", "title": "x",
			"product_actual_price": -5}, {"title": "no sku"}, {"product_sku": "NEW-1", "title": "twice"}}
		a.do(t, http.MethodPost, "/products/batch", map[string]any{"products": bad[:2]}).wantFields(t, "products.1.product_actual_price")
		a.do(t, http.MethodPost, "/products/batch", map[string]any{"products": bad[2:3]}).wantFields(t, "products.0.product_sku")
		a.do(t, http.MethodPost, "/products/batch", map[string]any{"products": []map[string]any{bad[0], bad[3]}}).
			wantFields(t, "products.1.product_sku")
		a.do(t, http.MethodPost, "/products/batch", map[string]any{"products": []any{map[string]any{"product_sku": 5}}}).
			wantFields(t, "products.0.product_sku")
		if l := a.catList(t, "/products?product_sku=eq|NEW-1"); l.catTotal() != 0 {
			t.Errorf("a refused batch wrote %d products", l.catTotal())
		}
		a.do(t, http.MethodPost, "/products/batch", map[string]any{"products": []any{}}).wantFields(t, "products")
		a.do(t, http.MethodPost, "/products/batch", map[string]any{}).wantFields(t, "products")
		many := append(items, map[string]any{"product_sku": "SKU-1001", "title": "one too many"})
		a.do(t, http.MethodPost, "/products/batch", map[string]any{"products": many}).wantFields(t, "products")
	})
}

// TestRewardBasket: a reward carries its basket. Without an amount the
// amount is the lines' total, with one they must agree; a SKU the
// business does not know is kept and named in unknown_skus; each line
// is tied to the product its SKU names; the basket is shown again with
// relationships=items; bad lines are refused by their place and write
// nothing; only a reward takes a basket.
func TestRewardBasket(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		cat := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Pastries"})
		croissant := a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Croissant", "product_sku": "CR-01",
			"category_id": cat["id"]})
		ann := a.createCustomer(t, map[string]any{"email": "ann@basket.example"})
		reward := func(extra map[string]any) *result {
			body := map[string]any{"intent": "reward", "customer": map[string]any{"id": ann.ID}}
			for k, v := range extra {
				body[k] = v
			}
			return a.do(t, http.MethodPost, "/transactions", body)
		}
		lines := []map[string]any{{"sku": "CR-01", "quantity": 2, "price": 2.40},
			{"sku": "ZZ-99", "price": 3.00, "discount": 0.50}}

		d := reward(map[string]any{"items": lines, "tax": 0.80, "channel": "in_store"}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, d, "amount", 7.3, "points", 7.0, "tax", 0.8, "shipping", 0.0, "channel", "in_store",
			"items.0.sku", "CR-01", "items.0.quantity", 2.0, "items.0.price", 2.4, "items.0.product_id", croissant["id"],
			"items.0.category_id", cat["id"], "items.1.sku", "ZZ-99", "items.1.quantity", 1.0, "items.1.discount", 0.5,
			"items.1.product_id", nil, "unknown_skus.0", "ZZ-99")
		if u := d["unknown_skus"].([]any); len(u) != 1 {
			t.Errorf("unknown_skus %v, want [ZZ-99]", u)
		}
		if v := at(d, "items.1.product_id"); v != nil {
			t.Errorf("the unknown SKU's line names product %v", v)
		}
		id := catID(d)

		// An amount that agrees is taken; one that does not is refused.
		reward(map[string]any{"items": lines, "amount": 7.30}).want(t, http.StatusOK)
		points := func() any {
			return a.get(t, "/customers/"+ann.ID+"?include=balance").want(t, http.StatusOK).customer(t).Balance["points"]
		}
		before := points()
		for field, extra := range map[string]map[string]any{
			"amount":           {"items": lines, "amount": 10},
			"items":            {"items": []any{}},
			"items.0.sku":      {"items": []map[string]any{{"price": 1}}},
			"items.0.price":    {"items": []map[string]any{{"sku": "CR-01"}}},
			"items.0.quantity": {"items": []map[string]any{{"sku": "CR-01", "price": 1, "quantity": 0}}},
			"items.1.discount": {"items": []map[string]any{lines[0], {"sku": "X", "price": 1, "discount": 2}}},
			"channel":          {"items": lines, "channel": "tv"},
			"tax":              {"items": lines, "tax": -1},
		} {
			reward(extra).wantFields(t, field)
		}
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "adjust_points_balance", "points": 5, "items": lines,
			"customer": map[string]any{"id": ann.ID}}).wantFields(t, "items")
		if after := points(); after != before || before == nil {
			t.Errorf("refused baskets moved the balance from %v to %v", before, after)
		}

		// The basket is read again with relationships=items, on both lists.
		var list struct{ Data []map[string]any }
		a.get(t, "/transactions?relationships=items").want(t, http.StatusOK).decode(t, &list)
		var found map[string]any
		for _, tx := range list.Data {
			if catID(tx) == id {
				found = tx
			}
		}
		if found == nil {
			t.Fatalf("entry %s not in GET /transactions", id)
		}
		wantAt(t, found, "items.0.sku", "CR-01", "items.1.sku", "ZZ-99", "unknown_skus.0", "ZZ-99", "tax", 0.8)
		var history struct{ Data []map[string]any }
		a.get(t, "/customers/"+ann.ID+"/transactions?relationships=items").want(t, http.StatusOK).decode(t, &history)
		if len(history.Data) == 0 || at(history.Data[len(history.Data)-1], "items.0.sku") != "CR-01" {
			t.Errorf("the customer's history with items: %v", history.Data)
		}
		var plain struct{ Data []map[string]any }
		a.get(t, "/transactions").want(t, http.StatusOK).decode(t, &plain)
		for _, tx := range plain.Data {
			if _, ok := tx["items"]; ok {
				t.Fatalf("GET /transactions without relationships=items shows items: %v", tx)
			}
		}
	})
}

// TestEvaluateBasket: POST /baskets/evaluate answers what a reward would
// earn and why, writing nothing; for random baskets of a program with
// offers of every kind, evaluating and then rewarding give the same
// points (the daily bonus used up by one reward shows as used in the next
// evaluation).
func TestEvaluateBasket(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		ann := a.createCustomer(t, map[string]any{"email": "ann@eval.example"})
		bob := a.createCustomer(t, map[string]any{"email": "bob@eval.example"})
		a.catData(t, http.MethodPost, "/products", map[string]any{"title": "Croissant", "product_sku": "CR-01"})
		double := a.catOffer(t, map[string]any{"type_id": 1, "title": "Double over 20", "multip_factor": 2, "min_purchase": 20})
		forAnn := a.catOffer(t, map[string]any{"type_id": 3, "title": "For Ann", "points": 7, "targeted_offer_flag": 1,
			"customers": []string{ann.ID}})
		a.catOffer(t, map[string]any{"type_id": 3, "title": "Once a day", "points": 5, "offer_frequency_id": 1})
		rng := rand.New(rand.NewPCG(7, uint64(len(engine))))
		evaluate := func(body map[string]any) map[string]any {
			t.Helper()
			return a.do(t, http.MethodPost, "/baskets/evaluate", body).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		}
		ledger := func() float64 {
			var l catPage
			a.get(t, "/transactions?per_page=1").want(t, http.StatusOK).decode(t, &l)
			f, _ := l.Meta["total"].(float64)
			return f
		}
		for i := range 12 {
			c := []customer{ann, bob}[rng.IntN(2)]
			var items []map[string]any
			for range 1 + rng.IntN(3) {
				items = append(items, map[string]any{"sku": []string{"CR-01", "NEW-9"}[rng.IntN(2)], "quantity": 1 + rng.IntN(3),
					"price": float64(100+rng.IntN(1500)) / 100})
			}
			basket := map[string]any{"items": items, "customer": map[string]any{"id": c.ID}}
			before := ledger()
			ev := evaluate(basket)
			if ledger() != before {
				t.Fatalf("basket %d: the evaluation wrote an entry", i)
			}
			reward := map[string]any{"intent": "reward", "items": items, "customer": map[string]any{"id": c.ID}}
			got := a.do(t, http.MethodPost, "/transactions", reward).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			if ev["points"] != got["points"] || ev["eligible_amount"] != got["amount"] {
				t.Errorf("basket %d (%v): evaluated %v points on %v, the reward earned %v on %v", i, items, ev["points"],
					ev["eligible_amount"], got["points"], got["amount"])
			}
		}

		// Why: the earning rules and the multiplier applied for a big
		// basket; the bonus for Ann is not Bob's; the daily bonus is used.
		ev := evaluate(map[string]any{"amount": 30, "customer": map[string]any{"id": bob.ID}})
		rules := map[string]any{}
		for _, list := range []string{"applied", "not_applied"} {
			for _, r := range ev[list].([]any) {
				m := r.(map[string]any)
				m["list"] = list
				rules[m["rule_id"].(string)] = m
			}
		}
		wantAt(t, rules, "earning.list", "applied", "earning.points", 30.0,
			"offer-"+double+".list", "applied", "offer-"+double+".points", 30.0,
			"offer-"+forAnn+".list", "not_applied", "offer-"+forAnn+".reason", "only for its target customers")
		if ev["points"] != 60.0 && ev["points"] != 65.0 {
			t.Errorf("30.00 for Bob: %v points, want 60 (or 65 with the daily bonus unused)", ev["points"])
		}
		noCustomer := evaluate(map[string]any{"items": []map[string]any{{"sku": "GONE", "price": 4}}})
		wantAt(t, noCustomer, "points", 9.0, "unknown_skus.0", "GONE", "eligible_amount", 4.0)

		// Bad input is named; an unknown customer or branch is 404.
		a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"items": []map[string]any{{"sku": "X"}}}).wantFields(t, "items.0.price")
		a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"amount": 5, "at": "yesterday"}).wantFields(t, "at")
		a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"amount": 5, "customer": map[string]any{"email": "ann@eval.example"}}).
			wantFields(t, "customer.id")
		a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"amount": 5, "customer": map[string]any{"id": "01a2f0c0c0c0c0c0c0c0c0c0c0c0c0c0"}}).
			wantError(t, http.StatusNotFound)
		a.do(t, http.MethodPost, "/baskets/evaluate", map[string]any{"amount": 5, "branch": map[string]any{"id": "01a2f0c0c0c0c0c0c0c0c0c0c0c0c0c0"}}).
			wantError(t, http.StatusNotFound)
	})
}

// TestSKUsFollowProductChanges: a reward's or a dry run's SKUs name the
// products as they are now, on every instance, although instances keep
// the SKUs they have seen: a SKU unknown on one instance is known there
// once another adds the product, and unknown again once it is renamed or
// deleted; on the instance that made the change, at once.
func TestSKUsFollowProductChanges(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		dsn := testenv.MigratedDSN(t, engine)
		one, two := startOn(t, dsn, roomy), startOn(t, dsn, roomy)
		a := one.owner(t, one.biz)
		b := &client{e: two, key: a.key, token: a.token}
		ann := a.createCustomer(t, map[string]any{"email": "ann@skus.example"})
		drinks := a.catData(t, http.MethodPost, "/product-categories", map[string]any{"name": "Drinks"})
		a.catData(t, http.MethodPost, "/earning-rules", map[string]any{"name": "Drinks", "conditions": map[string]any{"categories": []any{drinks["id"]}},
			"effect": map[string]any{"type": "bonus", "points": 40}})
		basket := map[string]any{"items": []map[string]any{{"sku": "NEW-1", "price": 5}}, "customer": map[string]any{"id": ann.ID}}
		unknown := func(c *client) []any {
			t.Helper()
			d := c.do(t, http.MethodPost, "/baskets/evaluate", basket).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			return d["unknown_skus"].([]any)
		}
		// eventually waits until c sees the SKU as want (known or not).
		eventually := func(c *client, known bool, what string) {
			t.Helper()
			deadline := time.Now().Add(10 * time.Second)
			for (len(unknown(c)) == 0) != known {
				if time.Now().After(deadline) {
					t.Fatalf("%s: after 10 s the instance still sees NEW-1 as known=%v", what, !known)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		for _, c := range []*client{a, b} {
			if u := unknown(c); len(u) != 1 || u[0] != "NEW-1" {
				t.Fatalf("before the product: unknown_skus %v", u)
			}
			reward := c.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "items": basket["items"],
				"customer": basket["customer"]}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
			wantAt(t, reward, "points", 5.0, "unknown_skus.0", "NEW-1", "items.0.product_id", nil)
		}

		p := a.catData(t, http.MethodPost, "/products", map[string]any{"title": "New", "product_sku": "NEW-1", "category_id": drinks["id"]})
		if u := unknown(a); len(u) != 0 {
			t.Errorf("the instance that added the product still sees NEW-1 as unknown")
		}
		eventually(b, true, "added on the other instance")
		reward := b.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "items": basket["items"],
			"customer": basket["customer"]}).want(t, http.StatusOK).obj(t)["data"].(map[string]any)
		wantAt(t, reward, "points", 45.0, "items.0.product_id", p["id"], "items.0.category_id", drinks["id"])

		a.do(t, http.MethodPut, fmt.Sprintf("/products/%v", p["id"]), map[string]any{"product_sku": "NEW-2"}).want(t, http.StatusOK)
		if u := unknown(a); len(u) != 1 {
			t.Errorf("the instance that renamed the SKU still knows NEW-1")
		}
		eventually(b, false, "renamed on the other instance")
		basket["items"] = []map[string]any{{"sku": "NEW-2", "price": 5}}
		eventually(b, true, "the new SKU on the other instance")
		a.do(t, http.MethodDelete, fmt.Sprintf("/products/%v", p["id"]), nil).want(t, http.StatusNoContent)
		eventually(b, false, "deleted on the other instance")
	})
}
