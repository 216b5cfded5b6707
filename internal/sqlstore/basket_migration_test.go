package sqlstore_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestBasketTablesMigration: a basket reward written before 00073 (which
// rebuilds SQLite's basket tables in their keys' b-trees) reads the same
// after it, and after it is undone; a return by item then takes back its
// units. On SQLite the tables are kept without rowids after it.
func TestBasketTablesMigration(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		if err := db.MigrateDownTo(ctx, 72); err != nil {
			t.Fatal(err)
		}
		b, err := db.Business(ctx, createBusiness(t, db, "").BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		products := &loyalty.ProductService{Store: db}
		if _, err := products.Create(ctx, b, loyalty.ProductInput{Title: loyalty.Some("Latte"), SKU: loyalty.Some("LATTE")}); err != nil {
			t.Fatal(err)
		}
		c := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("basket@migration.example")})
		svc := loyalty.TransactionService{Store: db, Customers: &loyalty.CustomerService{Store: db}}
		var in loyalty.TransactionInput
		decode(t, map[string]any{"intent": "reward", "customer": map[string]any{"id": c.ID}, "tax": json.Number("1.20"),
			"items": []map[string]any{{"sku": "LATTE", "quantity": 2, "price": json.Number("4.50")}, {"sku": "UNKNOWN-1", "quantity": 1, "price": json.Number("3.00"), "discount": json.Number("0.50")}}}, &in)
		e, _, err := svc.Create(ctx, b, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		read := func(when string) *loyalty.Basket {
			t.Helper()
			got, err := db.Baskets(ctx, b.ID, []int64{e.ID})
			if err != nil || got[e.ID] == nil || len(got[e.ID].Lines) != 2 {
				t.Fatalf("%s: baskets %+v (%v), want the reward's with 2 lines", when, got, err)
			}
			return got[e.ID]
		}
		before := read("before 00073")
		for _, step := range []struct {
			name string
			to   func() error
		}{{"after 00073", func() error { return db.MigrateTo(ctx, 73) }},
			{"undone", func() error { return db.MigrateDownTo(ctx, 72) }},
			{"after 00073 again", func() error { return db.MigrateTo(ctx, 73) }}} {
			if err := step.to(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if got := read(step.name); !reflect.DeepEqual(got, before) {
				t.Errorf("%s: basket %+v, want %+v as before", step.name, got, before)
			}
		}
		if db.Dialect() == sqlstore.SQLite {
			for _, table := range []string{"baskets", "basket_lines"} {
				var schema string
				if err := db.SQL().QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = $1`, table).Scan(&schema); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(schema, "WITHOUT ROWID") {
					t.Errorf("%s after 00073: %s", table, schema)
				}
			}
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		var ret loyalty.TransactionInput
		decode(t, map[string]any{"intent": "return", "reverses_id": e.ID, "customer": map[string]any{"id": c.ID},
			"items": []map[string]any{{"sku": "LATTE", "quantity": 1}}}, &ret)
		r, _, err := svc.Create(ctx, b, ret, nil)
		if err != nil || r.Points >= 0 || -r.Points > e.Points {
			t.Fatalf("a return of one latte: %+v (%v); want some of the reward's %d points back", r, err, e.Points)
		}
	})
}
