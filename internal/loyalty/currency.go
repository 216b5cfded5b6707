package loyalty

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strings"

	"github.com/bojanz/currency"
	"golang.org/x/text/language"
)

// FallbackCurrency is the currency of a business whose country has none
// of its own in CLDR (Antarctica, say).
const FallbackCurrency = "USD"

// DefaultCurrency is the ISO 4217 code of the currency used in a country
// (ISO 3166-1 alpha-2), as CLDR gives it: EUR for FR, JPY for JP.
func DefaultCurrency(country string) string {
	if code, ok := currency.ForCountryCode(strings.ToUpper(country)); ok && code != "" {
		return code
	}
	return FallbackCurrency
}

// NormalizeCurrency returns the ISO 4217 code s names (any case, spaces
// trimmed), and false when it names none.
func NormalizeCurrency(s string) (string, bool) {
	code := strings.ToUpper(strings.TrimSpace(s))
	if len(code) != 3 || !currency.IsValid(code) {
		return "", false
	}
	return code, true
}

// currencyMessage is the refusal of a code that is not a currency.
const currencyMessage = "The currency must be an ISO 4217 code, such as EUR, USD or JPY."

// CurrencyDigits is how many decimals an amount of the currency has
// (2 for EUR, 0 for JPY).
func CurrencyDigits(code string) int {
	if d, ok := currency.GetDigits(code); ok {
		return int(d)
	}
	return 2
}

// Locale is the locale whose conventions a business's amounts are written
// in: the language most spoken in its country, as CLDR's likely subtags
// have it, with the country (fr-FR, de-CH, ja-JP); en and the country
// when CLDR knows no language for it, en-US when the business has no
// country.
func (b Business) Locale() string {
	if b.Country == "" {
		return "en-US"
	}
	country := strings.ToUpper(b.Country)
	lang := "en"
	if region, err := language.ParseRegion(country); err == nil {
		if tag, err := language.Compose(language.Und, region); err == nil {
			if base, conf := tag.Base(); conf != language.No && base.String() != "und" {
				lang = base.String()
			}
		}
	}
	return lang + "-" + country
}

// FormatMoney writes amount in the business's currency as people of its
// locale write it, by CLDR's currency formats: "$1,234.50" for USD in
// en-US, "1 234,50 €" for EUR in fr-FR, "￥1,234" for JPY in ja-JP. It is
// for people: refusals the console shows, e-mails, pages; the wire keeps
// exact decimals.
func (b Business) FormatMoney(amount Money) string {
	code := b.CurrencyCode()
	a, err := currency.NewAmount(amount.String(), code)
	if err != nil {
		// Every code a business keeps is valid; an amount is never lost.
		return amount.String() + " " + code
	}
	return currency.NewFormatter(currency.NewLocale(b.Locale())).Format(a.Round())
}

// checkDecimals refuses, naming field, an amount finer than the business's
// currency counts: an amount of JPY, which has no minor unit, with cents.
// (Amounts are kept in hundredths: a currency of three decimals, such as
// KWD, takes two.)
func (b Business) checkDecimals(v Validation, field string, m Money) {
	code := b.CurrencyCode()
	d := CurrencyDigits(code)
	if d >= 2 {
		return
	}
	unit := Money(1)
	for range 2 - d {
		unit *= 10
	}
	if m%unit == 0 {
		return
	}
	if d == 0 {
		v.Add(field, "Amounts in "+code+" have no decimals; "+m.String()+" has.")
	} else {
		v.Add(field, "Amounts in "+code+" have one decimal; "+m.String()+" has two.")
	}
}

// checkSent is checkDecimals of each amount sent.
func (b Business) checkSent(v Validation, sent map[string]Opt[Money]) {
	for field, o := range sent {
		if m, ok := o.Value(); ok && !v.Has(field) {
			b.checkDecimals(v, field, m)
		}
	}
}

// CurrencyCode is the business's currency, its country's when it has none
// set (a business read before it had one).
func (b Business) CurrencyCode() string {
	if b.Currency != "" {
		return b.Currency
	}
	return DefaultCurrency(b.Country)
}

// Redeeming reports whether the business set what its points are worth:
// Points points worth Value of its currency.
func (v PointValue) Redeeming() bool { return v.Points > 0 && v.Value > 0 }

// Worth is what points are worth at v, rounded down to the minor unit
// (exact: the product is taken in big integers, so it never overflows);
// 0 when v is not set.
func (v PointValue) Worth(points int64) Money {
	if !v.Redeeming() || points <= 0 {
		return 0
	}
	n := new(big.Int).Mul(big.NewInt(points), big.NewInt(int64(v.Value)))
	n.Quo(n, big.NewInt(v.Points))
	if !n.IsInt64() {
		return Money(math.MaxInt64)
	}
	return Money(n.Int64())
}

// Better reports whether v gives more money per point than w, compared
// exactly (by cross-multiplication); any value beats an unset one.
func (v PointValue) Better(w PointValue) bool {
	if !v.Redeeming() {
		return false
	}
	if !w.Redeeming() {
		return true
	}
	a := new(big.Int).Mul(big.NewInt(int64(v.Value)), big.NewInt(w.Points))
	return a.Cmp(new(big.Int).Mul(big.NewInt(int64(w.Value)), big.NewInt(v.Points))) > 0
}

// LiabilityValue is the value a business's outstanding points are counted
// at: its redemption value when set (what it says a point is worth), else
// the best money value per point among its rewards that can be redeemed
// (what redeeming a point may cost it at most), else none.
func LiabilityValue(redemption PointValue, rewards []PointValue) PointValue {
	if redemption.Redeeming() {
		return redemption
	}
	var best PointValue
	for _, v := range rewards {
		if v.Better(best) {
			best = v
		}
	}
	return best
}

// Liability is the value the outstanding points are counted at
// (LiabilityValue) and what they are worth at it, rounded down.
func (d DashboardData) Liability() (PointValue, Money) {
	v := LiabilityValue(d.Redemption, d.Values)
	return v, v.Worth(d.Outstanding)
}

// Redemption limits.
const maxRedemptionRatio = 1_000_000_000

// RedemptionInput is the redemption value a PATCH /rules may set, flat as
// the reference sends it: redemption_ratio points are worth
// redemption_amount of the business's currency; both null clear it.
type RedemptionInput struct {
	RedemptionRatio  Opt[int64] `json:"redemption_ratio"`
	RedemptionAmount Opt[Money] `json:"redemption_amount"`
}

// apply validates the redemption value sent and merges it into r; a value
// is both numbers or neither.
func (in RedemptionInput) apply(v Validation, r *Rules) {
	next := r.Redemption
	if in.RedemptionRatio.Null {
		next.Points = 0
	} else if x, ok := in.RedemptionRatio.Value(); ok {
		if x < 1 || x > maxRedemptionRatio {
			v.Add("redemption_ratio", "The redemption ratio must be a whole number of points between 1 and 1000000000.")
		}
		next.Points = x
	}
	if in.RedemptionAmount.Null {
		next.Value = 0
	} else if x, ok := in.RedemptionAmount.Value(); ok {
		if x <= 0 || x > MaxMoney {
			v.Add("redemption_amount", "The redemption amount must be greater than 0 and at most "+MaxMoney.String()+".")
		}
		next.Value = x
	}
	if v.Has("redemption_ratio") || v.Has("redemption_amount") {
		return
	}
	switch {
	case next.Points > 0 && next.Value == 0:
		v.Add("redemption_amount", "Send redemption_amount with redemption_ratio: the points are worth that amount.")
	case next.Value > 0 && next.Points == 0:
		v.Add("redemption_ratio", "Send redemption_ratio with redemption_amount: that many points are worth the amount.")
	default:
		r.Redemption = next
	}
}

// applyCurrency validates the currency a PATCH /rules sent, an ISO 4217
// code as a string ("EUR") or in the reference's currency object
// ({"iso_code": "EUR"}), and sets it on r.
func applyCurrency(v Validation, in Opt[json.RawMessage], r *Rules) {
	raw, ok := in.Value()
	if !ok {
		if in.Null {
			v.Add("currency", "The currency may not be null; send an ISO 4217 code, such as EUR.")
		}
		return
	}
	var s string
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		var obj struct {
			ISOCode *string `json:"iso_code"`
			Code    *string `json:"code"`
		}
		if json.Unmarshal(raw, &obj) != nil || (obj.ISOCode == nil && obj.Code == nil) {
			v.Add("currency.iso_code", currencyMessage)
			return
		}
		if obj.ISOCode != nil {
			s = *obj.ISOCode
		} else {
			s = *obj.Code
		}
	} else if json.Unmarshal(raw, &s) != nil {
		v.Add("currency", currencyMessage)
		return
	}
	code, ok := NormalizeCurrency(s)
	if !ok {
		v.Add("currency", currencyMessage)
		return
	}
	r.Currency = code
}

// CurrencyCodes lists every ISO 4217 code a business may choose, sorted.
func CurrencyCodes() []string { return currency.GetCurrencyCodes() }
