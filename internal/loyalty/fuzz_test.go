package loyalty_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Fuzz targets of the parsers of client input. `go test` runs their seeds
// (testdata/fuzz); `go test -run '^$' -fuzz '^FuzzX$' ./internal/loyalty`
// explores. None may panic, and whatever parses must be what the stores
// and the rest of the domain expect.

// FuzzParseListQuery: any query string is a list query or a client error
// (never an internal one); a parsed query keeps to its bounds, and its text
// values are UTF-8 without NUL characters.
func FuzzParseListQuery(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw) // a bad pair is dropped; the rest is parsed
		lq, err := loyalty.ParseListQuery(q, testSpec)
		if err != nil {
			if c := loyalty.ErrorCode(err); c != loyalty.EBadRequest && c != loyalty.EInvalid {
				t.Fatalf("%q: %v, want a bad request or an invalid field", raw, err)
			}
			return
		}
		if lq.Page < 1 || lq.PerPage < 1 || lq.PerPage > 100 || lq.Offset() < 0 {
			t.Fatalf("%q: page %d, per_page %d, offset %d", raw, lq.Page, lq.PerPage, lq.Offset())
		}
		if len(lq.Filters) > loyalty.MaxFilters {
			t.Fatalf("%q: %d filters", raw, len(lq.Filters))
		}
		for _, fl := range lq.Filters {
			n := len(fl.Values)
			switch {
			case fl.Op == loyalty.OpBetween && n != 2,
				(fl.Op == loyalty.OpIn || fl.Op == loyalty.OpNotIn) && (n < 1 || n > loyalty.MaxFilterValues),
				fl.Op != loyalty.OpBetween && fl.Op != loyalty.OpIn && fl.Op != loyalty.OpNotIn && n != 1:
				t.Fatalf("%q: %s with %d values", raw, fl.Op, n)
			}
			kind := testSpec.Fields[fl.Field]
			for _, v := range fl.Values {
				s, isText := v.(string)
				if !isText {
					continue
				}
				if s == "" || !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
					t.Fatalf("%q: filter %s holds %q", raw, fl.Field, s)
				}
				if kind == loyalty.KindPhone && !strings.HasPrefix(s, "+") {
					t.Fatalf("%q: phone %q is not E.164", raw, s)
				}
			}
		}
	})
}

// FuzzNormalizePhone: a number that normalizes is E.164 (a "+" and at most
// 15 digits), and normalizing it again changes nothing.
func FuzzNormalizePhone(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw, country string) {
		p, ok := loyalty.NormalizePhone(raw, country)
		if !ok {
			return
		}
		digits := strings.TrimPrefix(p, "+")
		if digits == p || len(digits) < 2 || len(digits) > 15 || strings.Trim(digits, "0123456789") != "" {
			t.Fatalf("NormalizePhone(%q, %q) = %q, not E.164", raw, country, p)
		}
		if again, ok := loyalty.NormalizePhone(p, ""); !ok || again != p {
			t.Fatalf("NormalizePhone(%q) = %q, %v; want it unchanged", p, again, ok)
		}
		if !slices.Contains([]string{"", "ZZ"}, loyalty.PhoneRegion(p)) && !loyalty.ValidCountry(loyalty.PhoneRegion(p)) {
			t.Fatalf("PhoneRegion(%q) = %q, not a country", p, loyalty.PhoneRegion(p))
		}
	})
}

// FuzzParseMoney: an amount that parses is within MaxMoney and written
// back as it reads; the JSON decoder reads the same text to the same
// amount, and a type error it gives names the field.
func FuzzParseMoney(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		m, err := loyalty.ParseMoney(s)
		if err == nil {
			if m > loyalty.MaxMoney || m < -loyalty.MaxMoney {
				t.Fatalf("ParseMoney(%q) = %v, beyond MaxMoney", s, m)
			}
			if back, err := loyalty.ParseMoney(m.String()); err != nil || back != m {
				t.Fatalf("ParseMoney(%q) = %v, but its String %q reads %v, %v", s, m, m.String(), back, err)
			}
		}
		var in struct {
			Amount loyalty.Money `json:"amount"`
		}
		jerr := json.Unmarshal([]byte(`{"amount":`+s+`}`), &in)
		var te *json.UnmarshalTypeError
		switch {
		case jerr == nil && err == nil && in.Amount != m:
			t.Fatalf("JSON %q read %v, ParseMoney %v", s, in.Amount, m)
		case errors.As(jerr, &te) && te.Field != "amount":
			t.Fatalf("JSON %q: type error names %q, want amount", s, te.Field)
		}
	})
}
