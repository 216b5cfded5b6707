package sqlstore_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/nyaruka/phonenumbers"
)

// TestBusinessCurrencyStored: a business keeps the currency it was
// created with, and its rules keep the redemption value and a new
// currency; every read of the business (alone, with its rules, for GET
// /me, for the console's profile) has them.
func TestBusinessCurrencyStored(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		id := loyalty.NewID()
		n := loyalty.NewBusiness{Name: "Boulangerie", LoyaltyType: loyalty.PerSpend, Country: "FR",
			OwnerEmail: "owner-" + id + "@shop.example", OwnerPassword: "unused password"}
		if err := n.Validate(); err != nil {
			t.Fatal(err)
		}
		cb, err := db.CreateBusiness(ctx, n, "hash", "key-"+id)
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.Business(ctx, cb.BusinessID)
		if err != nil || b.Currency != "EUR" {
			t.Fatalf("a new French business's currency = %q, %v; want EUR (its country's)", b.Currency, err)
		}
		ledger := &loyalty.TransactionService{Store: db}
		r, err := ledger.Rules(ctx, b)
		if err != nil || r.Currency != "EUR" || r.Redemption != (loyalty.PointValue{}) {
			t.Fatalf("rules of a new business: currency %q, redemption %+v, %v; want EUR and none", r.Currency, r.Redemption, err)
		}

		in := decodeInput[loyalty.RulesInput](t, `{"redemption_ratio": 250, "redemption_amount": 2.5, "currency": "chf"}`)
		if _, err := ledger.UpdateRules(ctx, b, in); err != nil {
			t.Fatal(err)
		}
		want := loyalty.PointValue{Points: 250, Value: 250}
		if r, err = ledger.Rules(ctx, b); err != nil || r.Redemption != want || r.Currency != "CHF" {
			t.Fatalf("rules after PATCH: redemption %+v, currency %q, %v; want %+v and CHF", r.Redemption, r.Currency, err, want)
		}
		withRules, err := db.BusinessWithRules(ctx, b.ID)
		if err != nil || withRules.Currency != "CHF" || withRules.Loaded.Rules.Redemption != want {
			t.Fatalf("BusinessWithRules: currency %q, redemption %+v, %v", withRules.Currency, withRules.Loaded.Rules.Redemption, err)
		}
		if b, _ = db.Business(ctx, b.ID); b.Currency != "CHF" {
			t.Errorf("Business after PATCH: currency %q, want CHF", b.Currency)
		}
		if a, err := db.Account(ctx, b.ID, cb.OwnerID); err != nil || a.Business.Currency != "CHF" {
			t.Errorf("Account: currency %q, %v; want CHF", a.Business.Currency, err)
		}
		p, err := db.BusinessProfile(ctx, b.ID)
		if err != nil || p.Currency != "CHF" {
			t.Fatalf("profile: currency %q, %v; want CHF", p.Currency, err)
		}

		// The profile changes the currency too; the redemption value stays.
		next := p
		next.Currency = "JPY"
		if err := db.UpdateBusinessProfile(ctx, b.ID, p, next); err != nil {
			t.Fatal(err)
		}
		if r, _ = ledger.Rules(ctx, b); r.Currency != "JPY" || r.Redemption != want {
			t.Errorf("rules after the profile's change: currency %q, redemption %+v; want JPY and %+v", r.Currency, r.Redemption, want)
		}

		// Both null clear the value.
		in = decodeInput[loyalty.RulesInput](t, `{"redemption_ratio": null, "redemption_amount": null}`)
		if _, err := ledger.UpdateRules(ctx, b, in); err != nil {
			t.Fatal(err)
		}
		if r, _ = ledger.Rules(ctx, b); r.Redemption != (loyalty.PointValue{}) || r.Currency != "JPY" {
			t.Errorf("after clearing: redemption %+v, currency %q; want none and JPY", r.Redemption, r.Currency)
		}
	})
}

// TestBusinessCurrencyMigration: 00035 gives each existing business the
// currency of its country, or the one its chosen symbol names without
// doubt; existing rules have no redemption value; down and up again keep
// the currency of a business created since.
func TestBusinessCurrencyMigration(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		ids := map[string]string{}
		for _, name := range []string{"fr", "jp", "us-euro", "gb-pound", "ch-dollar", "aq"} {
			ids[name] = createBusiness(t, db, "").BusinessID
		}
		ledger := &loyalty.TransactionService{Store: db}
		b, _ := db.Business(ctx, ids["fr"])
		if _, err := ledger.UpdateRules(ctx, b, decodeInput[loyalty.RulesInput](t, `{"reward_ratio": 2}`)); err != nil {
			t.Fatal(err)
		}
		if err := db.MigrateDownTo(ctx, 34); err != nil {
			t.Fatal(err)
		}
		for name, set := range map[string][2]string{"fr": {"FR", ""}, "jp": {"JP", "¥"}, "us-euro": {"US", "€"},
			"gb-pound": {"GB", "£"}, "ch-dollar": {"CH", "$"}, "aq": {"AQ", ""}} {
			if _, err := db.SQL().ExecContext(ctx, `UPDATE businesses SET country_code = $1, currency_symbol = $2 WHERE id = $3`,
				set[0], set[1], ids[name]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{"fr": "EUR", "jp": "JPY", "us-euro": "EUR", "gb-pound": "GBP",
			"ch-dollar": "CHF", "aq": "USD"} {
			b, err := db.Business(ctx, ids[name])
			if err != nil || b.Currency != want {
				t.Errorf("%s after 00035: currency %q, %v; want %s", name, b.Currency, err, want)
			}
			if name != "us-euro" && name != "gb-pound" && b.Currency != loyalty.DefaultCurrency(b.Country) {
				t.Errorf("%s: the migration gave %s, the domain's default for %s is %s", name, b.Currency, b.Country,
					loyalty.DefaultCurrency(b.Country))
			}
		}
		b, _ = db.Business(ctx, ids["fr"])
		r, err := ledger.Rules(ctx, b)
		if err != nil || r.RewardRatio != 2 || r.Redemption != (loyalty.PointValue{}) {
			t.Errorf("rules kept by 00035: ratio %d, redemption %+v, %v; want 2 and none", r.RewardRatio, r.Redemption, err)
		}
	})
}

// TestCurrencyMigrationAgreesWithDomain: the country → currency table
// 00035 writes in SQL is the domain's DefaultCurrency for every country a
// business may have, in both dialects.
func TestCurrencyMigrationAgreesWithDomain(t *testing.T) {
	when := regexp.MustCompile(`WHEN country_code (?:= '([A-Z]{2})'|IN \(([^)]*)\)) THEN '([A-Z]{3})'`)
	for _, dialect := range []string{"postgres", "sqlite"} {
		body, err := os.ReadFile("migrations/" + dialect + "/00035_business_currency.sql")
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(body)), " ")
		table := map[string]string{}
		for _, m := range when.FindAllStringSubmatch(text, -1) {
			countries := []string{m[1]}
			if m[1] == "" {
				countries = strings.Split(strings.NewReplacer("'", "", " ", "").Replace(m[2]), ",")
			}
			for _, c := range countries {
				table[c] = m[3]
			}
		}
		if len(table) < 200 {
			t.Fatalf("%s: read %d countries from 00035, want every country", dialect, len(table))
		}
		for region := range phonenumbers.GetSupportedRegions() {
			want, got := loyalty.DefaultCurrency(region), table[region]
			if got == "" {
				got = "USD" // the ELSE
			}
			if got != want {
				t.Errorf("%s: 00035 gives %s the currency %s, the domain %s", dialect, region, got, want)
			}
		}
	}
}
