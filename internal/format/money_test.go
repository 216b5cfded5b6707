package format

import (
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestMoney: each business's amounts in its currency, written as people
// of its country write them (CLDR): the separators, the symbol's side and
// the currency's decimals.
func TestMoney(t *testing.T) {
	nbsp, nnbsp := "\u00a0", "\u202f"
	for _, c := range []struct {
		name              string
		country, currency string
		amount            loyalty.Money
		want              string
	}{
		{"USD in en-US", "US", "USD", 123450, "$1,234.50"},
		{"USD cents", "US", "USD", 5, "$0.05"},
		{"USD negative", "US", "USD", -1000, "-$10.00"},
		{"EUR in fr-FR", "FR", "EUR", 123450, "1" + nnbsp + "234,50" + nbsp + "€"},
		{"EUR in de-DE", "DE", "EUR", 1000, "10,00" + nbsp + "€"},
		{"EUR in nl-BE", "BE", "EUR", 123450, "€" + nbsp + "1.234,50"},
		{"GBP in en-GB", "GB", "GBP", 999, "£9.99"},
		{"CHF in de-CH", "CH", "CHF", 123450, "CHF" + nbsp + "1'234.50"},
		{"CAD in en-CA", "CA", "CAD", 1000, "$10.00"},
		{"USD in en-CA", "CA", "USD", 1000, "US$10.00"},
		{"JPY in ja-JP: no decimals", "JP", "JPY", 123400, "￥1,234"},
		{"JPY rounds half up", "JP", "JPY", 123450, "￥1,235"},
		{"JPY in en-US", "US", "JPY", 100000, "¥1,000"},
		{"EUR for a business without a country", "", "EUR", 1000, "€10.00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := loyalty.Business{Country: c.country, Currency: c.currency}
			if got := Money(c.amount, b); got != c.want {
				t.Errorf("Money(%s, %s in %s) = %q, want %q", c.amount, c.currency, b.Locale(), got, c.want)
			}
		})
	}
}

// TestCurrencyFacts: the symbol, the CSV header and the denominator of a
// business's currency; a business read without a currency has its
// country's.
func TestCurrencyFacts(t *testing.T) {
	for _, c := range []struct {
		country, currency, symbol, header string
		denominator                       int64
	}{
		{"US", "USD", "$", "Amount (USD)", 100},
		{"FR", "EUR", "€", "Amount (EUR)", 100},
		{"JP", "JPY", "￥", "Amount (JPY)", 1},
		{"CA", "USD", "US$", "Amount (USD)", 100},
		{"BH", "BHD", "د.ب.\u200f", "Amount (BHD)", 1000},
		{"DE", "", "€", "Amount (EUR)", 100},
	} {
		b := loyalty.Business{Country: c.country, Currency: c.currency}
		if got := Symbol(b); got != c.symbol {
			t.Errorf("Symbol(%s in %s) = %q, want %q", c.currency, b.Locale(), got, c.symbol)
		}
		if got := Header("Amount", b); got != c.header {
			t.Errorf("Header(%s) = %q, want %q", c.currency, got, c.header)
		}
		if got := Denominator(b); got != c.denominator {
			t.Errorf("Denominator(%s) = %d, want %d", c.currency, got, c.denominator)
		}
	}
}

// TestSample: a form's example amount has the currency's decimals.
func TestSample(t *testing.T) {
	for cur, want := range map[string]string{"EUR": "12.50", "USD": "12.50", "JPY": "1250", "KRW": "1250", "KWD": "12.50"} {
		if got := Sample(loyalty.Business{Currency: cur}, "12.50"); got != want {
			t.Errorf("Sample(%s) = %q, want %q", cur, got, want)
		}
	}
}

// TestCompact: whole amounts lose their minor units, others keep them.
func TestCompact(t *testing.T) {
	usd := loyalty.Business{Currency: "USD"}
	for amount, want := range map[loyalty.Money]string{120000: "$1,200", 0: "$0", 150: "$1.50"} {
		if got := Compact(amount, usd); got != want {
			t.Errorf("Compact(%d) = %q, want %q", amount, got, want)
		}
	}
}
