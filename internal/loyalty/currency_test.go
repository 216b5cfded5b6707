package loyalty_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func TestDefaultCurrencyAndLocale(t *testing.T) {
	for _, c := range []struct{ country, currency, locale string }{
		{"US", "USD", "en-US"}, {"FR", "EUR", "fr-FR"}, {"fr", "EUR", "fr-FR"}, {"JP", "JPY", "ja-JP"},
		{"CA", "CAD", "en-CA"}, {"CH", "CHF", "de-CH"}, {"BE", "EUR", "nl-BE"}, {"GB", "GBP", "en-GB"},
		{"AQ", "USD", "und-AQ"}, {"", "USD", "en-US"},
	} {
		if got := loyalty.DefaultCurrency(c.country); got != c.currency {
			t.Errorf("DefaultCurrency(%q) = %q, want %q", c.country, got, c.currency)
		}
		b := loyalty.Business{Country: c.country}
		if c.locale == "und-AQ" {
			c.locale = "en-AQ" // no language is likely there: English
		}
		if got := b.Locale(); got != c.locale {
			t.Errorf("Locale of a business in %q = %q, want %q", c.country, got, c.locale)
		}
		if got := b.CurrencyCode(); got != c.currency {
			t.Errorf("CurrencyCode of a business in %q without one = %q, want %q", c.country, got, c.currency)
		}
	}
	if got := (loyalty.Business{Country: "FR", Currency: "USD"}).CurrencyCode(); got != "USD" {
		t.Errorf("CurrencyCode of a French business in USD = %q", got)
	}
}

func TestNormalizeCurrency(t *testing.T) {
	for in, want := range map[string]string{"EUR": "EUR", " eur ": "EUR", "jpy": "JPY", "CHF": "CHF"} {
		if got, ok := loyalty.NormalizeCurrency(in); !ok || got != want {
			t.Errorf("NormalizeCurrency(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "EU", "EURO", "XXX1", "ZZZ", "€", "$"} {
		if got, ok := loyalty.NormalizeCurrency(in); ok {
			t.Errorf("NormalizeCurrency(%q) = %q, true; want refused", in, got)
		}
	}
}

func TestNewBusinessCurrency(t *testing.T) {
	n := validBusiness() // in Canada
	if err := n.Validate(); err != nil || n.Currency != "CAD" {
		t.Errorf("no currency given: %q, %v; want CAD, the country's", n.Currency, err)
	}
	n = validBusiness()
	n.Currency = "usd"
	if err := n.Validate(); err != nil || n.Currency != "USD" {
		t.Errorf("currency usd: %q, %v; want USD", n.Currency, err)
	}
	n = validBusiness()
	n.Currency = "dollars"
	if fields := invalidFields(t, n.Validate()); len(fields["currency"]) == 0 || len(fields) != 1 {
		t.Errorf("currency dollars: fields %v, want only currency", fields)
	}
}

// TestRedemptionWorth: what points are worth at a redemption value is
// exact, rounded down to the minor unit, with no overflow.
func TestRedemptionWorth(t *testing.T) {
	for _, c := range []struct {
		v      loyalty.PointValue
		points int64
		want   loyalty.Money
	}{
		{loyalty.PointValue{Points: 100, Value: 100}, 250, 250},                   // 100 points = 1.00: 250 are 2.50
		{loyalty.PointValue{Points: 20, Value: 100}, 30, 150},                     // 20 points = 1.00: 30 are 1.50
		{loyalty.PointValue{Points: 3, Value: 100}, 1, 33},                        // 1/3 of 1.00 is 0.33, down
		{loyalty.PointValue{Points: 3, Value: 100}, 2, 66},                        // 2/3 is 0.666…: 0.66, never 0.67
		{loyalty.PointValue{Points: 7, Value: 1}, 6, 0},                           // under a cent
		{loyalty.PointValue{Points: 1, Value: 1_000_000_000_00}, 1_000_000, 1e17}, // no overflow in the product
		{loyalty.PointValue{Points: 1, Value: 1_000_000_000_00}, math.MaxInt64, loyalty.Money(math.MaxInt64)},
		{loyalty.PointValue{}, 500, 0},                        // no value
		{loyalty.PointValue{Points: 100, Value: 100}, -50, 0}, // nothing outstanding
	} {
		if got := c.v.Worth(c.points); got != c.want {
			t.Errorf("%d points at %d for %s: %d, want %d", c.points, c.v.Points, c.v.Value, got, c.want)
		}
	}
}

// TestLiabilityValue: the redemption value counts when the business set
// one; else the best money per point among its rewards, compared exactly.
func TestLiabilityValue(t *testing.T) {
	rewards := []loyalty.PointValue{{Points: 100, Value: 500}, {Points: 3, Value: 16}, {Points: 0, Value: 100}, {Points: 10, Value: 0}}
	// 16/3 = 5.33… per point beats 500/100 = 5.
	if got := loyalty.LiabilityValue(loyalty.PointValue{}, rewards); got != rewards[1] {
		t.Errorf("without a redemption value: %+v, want the best reward %+v", got, rewards[1])
	}
	own := loyalty.PointValue{Points: 200, Value: 100}
	if got := loyalty.LiabilityValue(own, rewards); got != own {
		t.Errorf("with a redemption value: %+v, want it, %+v", got, own)
	}
	if got := loyalty.LiabilityValue(loyalty.PointValue{}, nil); got.Redeeming() {
		t.Errorf("no value at all: %+v", got)
	}
	d := loyalty.DashboardData{Outstanding: 1234, Redemption: own, Values: rewards}
	if v, m := d.Liability(); v != own || m != 617 {
		t.Errorf("Liability of 1234 points at 200 for 1.00 = %+v, %s; want 6.17", v, m)
	}
}

// TestRulesRedemptionAndCurrency: PATCH /rules sets the redemption value
// as the reference sends it and the currency as a code or the reference's
// object; each refusal names its field and changes nothing.
func TestRulesRedemptionAndCurrency(t *testing.T) {
	apply := func(r loyalty.Rules, body string) (loyalty.Rules, error) {
		var in loyalty.RulesInput
		decodeJSON(t, body, &in)
		err := in.Apply(&r)
		return r, err
	}
	base := loyalty.Rules{Currency: "USD"}
	r, err := apply(base, `{"redemption_ratio": 20, "redemption_amount": 1, "currency": "eur"}`)
	if err != nil || r.Redemption != (loyalty.PointValue{Points: 20, Value: 100}) || r.Currency != "EUR" {
		t.Fatalf("set: %+v, %v", r, err)
	}
	if r, err = apply(r, `{"redemption_amount": 0.05}`); err != nil || r.Redemption != (loyalty.PointValue{Points: 20, Value: 5}) {
		t.Fatalf("amount alone, with a ratio set: %+v, %v", r.Redemption, err)
	}
	if r, err = apply(r, `{"currency": {"iso_code": "JPY"}}`); err != nil || r.Currency != "JPY" {
		t.Fatalf("the reference's currency object: %q, %v", r.Currency, err)
	}
	if r, err = apply(r, `{"redemption_ratio": null, "redemption_amount": null}`); err != nil || r.Redemption.Redeeming() {
		t.Fatalf("cleared: %+v, %v", r.Redemption, err)
	}
	for body, field := range map[string]string{
		`{"redemption_ratio": 20}`:                                 "redemption_amount",
		`{"redemption_amount": 1}`:                                 "redemption_ratio",
		`{"redemption_ratio": 0, "redemption_amount": 1}`:          "redemption_ratio",
		`{"redemption_ratio": 1000000001, "redemption_amount": 1}`: "redemption_ratio",
		`{"redemption_ratio": 10, "redemption_amount": 0}`:         "redemption_amount",
		`{"redemption_ratio": 10, "redemption_amount": -1}`:        "redemption_amount",
		`{"currency": "EURO"}`:                                     "currency",
		`{"currency": "€"}`:                                        "currency",
		`{"currency": 978}`:                                        "currency",
		`{"currency": null}`:                                       "currency",
		`{"currency": {"symbol": "€"}}`:                            "currency.iso_code",
		`{"currency": {"iso_code": "ABC"}}`:                        "currency",
	} {
		before := loyalty.Rules{Currency: "USD", Redemption: loyalty.PointValue{}}
		after, err := apply(before, body)
		wantInvalid(t, err, field)
		if after.Currency != "USD" || after.Redemption != before.Redemption {
			t.Errorf("%s: refused, yet the rules became %+v", body, after)
		}
	}
}

// TestAmountsInTheCurrencysDecimals: an amount the rules are sent is
// counted in the currency they end with, and one finer than that
// currency counts (cents of yen) is refused by name.
func TestAmountsInTheCurrencysDecimals(t *testing.T) {
	apply := func(r loyalty.Rules, body string) (loyalty.Rules, error) {
		var in loyalty.RulesInput
		decodeJSON(t, body, &in)
		err := in.Apply(&r)
		return r, err
	}
	usd, jpy := loyalty.Rules{Currency: "USD"}, loyalty.Rules{Currency: "JPY"}
	for _, c := range []struct {
		rules loyalty.Rules
		body  string
		field string // "" when accepted
	}{
		{usd, `{"currency": "JPY", "reward_milestone_amount": 12.5}`, "reward_milestone_amount"},
		{usd, `{"currency": "JPY", "earning": {"reward_milestone_amount": 100.01}}`, "earning.reward_milestone_amount"},
		{usd, `{"currency": "JPY", "reward_milestone_amount": 1250}`, ""},
		{jpy, `{"redemption_ratio": 10, "redemption_amount": 0.5}`, "redemption_amount"},
		{jpy, `{"redemption_ratio": 10, "redemption_amount": 5}`, ""},
		{jpy, `{"currency": "USD", "redemption_ratio": 10, "redemption_amount": 0.5}`, ""},
		{usd, `{"reward_milestone_amount": 12.5}`, ""},
		// Amounts are kept in hundredths: a currency of three decimals
		// takes two, and a third is refused where every amount is read.
		{loyalty.Rules{Currency: "KWD"}, `{"reward_milestone_amount": 1.25}`, ""},
	} {
		r, err := apply(c.rules, c.body)
		if c.field == "" {
			if err != nil {
				t.Errorf("%s in %s: %v", c.body, c.rules.Currency, err)
			}
			continue
		}
		wantInvalid(t, err, c.field)
		if msg := invalidFields(t, err)[c.field]; !strings.Contains(msg[0], "have no decimals") {
			t.Errorf("%s: %v, want it to say %s has no decimals", c.body, msg, r.Currency)
		}
	}
	var e loyalty.Rules
	var in loyalty.RulesInput
	if err := json.Unmarshal([]byte(`{"reward_milestone_amount": 1.255}`), &in); err == nil {
		t.Errorf("a third decimal was read: %+v", in.Apply(&e))
	}
}
