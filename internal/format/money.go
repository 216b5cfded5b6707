// Package format writes what the service shows people (in the console,
// the e-mails, the referral and member pages, the CSV exports) by the
// conventions of the business they belong to. Amounts on the wire stay
// exact decimals; only people read these.
package format

import (
	"strconv"
	"strings"

	"github.com/bojanz/currency"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// Money writes amount in the business's currency as people of its locale
// (loyalty.Business.Locale) write it, by CLDR's currency formats: "$1,234.50"
// for USD in en-US, "1 234,50 €" for EUR in fr-FR, "￥1,235" for JPY in
// ja-JP, rounded half up to the currency's decimals.
func Money(amount loyalty.Money, b loyalty.Business) string { return b.FormatMoney(amount) }

// Sample is an example of an amount as a form takes it, in the business's
// currency's decimals: whole is "12.50" in euros and "1250" in yen.
func Sample(b loyalty.Business, whole string) string {
	if loyalty.CurrencyDigits(b.CurrencyCode()) < 2 {
		return strings.ReplaceAll(whole, ".", "")
	}
	return whole
}

// Symbol is the business's currency symbol in its locale ("€", "$", "CHF").
func Symbol(b loyalty.Business) string {
	code := b.CurrencyCode()
	if s, ok := currency.GetSymbol(code, currency.NewLocale(b.Locale())); ok && s != "" {
		return s
	}
	return code
}

// Header names a column of amounts with the business's currency code, as
// a CSV header: "Amount (EUR)".
func Header(label string, b loyalty.Business) string {
	return label + " (" + b.CurrencyCode() + ")"
}

// Denominator is how many minor units make one unit of the business's
// currency: 100 for EUR, 1 for JPY (the reference's currency.denominator).
func Denominator(b loyalty.Business) int64 {
	n := int64(1)
	for range loyalty.CurrencyDigits(b.CurrencyCode()) {
		n *= 10
	}
	return n
}

// Compact writes an amount of whole units without its minor units, as a
// chart's axis shows it: "$1,200" rather than "$1,200.00"; any other
// amount as Money.
func Compact(amount loyalty.Money, b loyalty.Business) string {
	d := Denominator(b)
	if d == 1 || int64(amount)%d != 0 {
		return Money(amount, b)
	}
	a, err := currency.NewAmount(strconv.FormatInt(int64(amount)/d, 10), b.CurrencyCode())
	if err != nil {
		return Money(amount, b)
	}
	f := currency.NewFormatter(currency.NewLocale(b.Locale()))
	f.MinDigits = 0
	return f.Format(a)
}
