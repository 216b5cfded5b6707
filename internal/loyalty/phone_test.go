package loyalty_test

import (
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func TestNormalizePhone(t *testing.T) {
	cases := []struct {
		raw, country, want string
	}{
		{"(650) 253-0000", "US", "+16502530000"},
		{"650.253.0000", "us", "+16502530000"},
		{"+1 650-253-0000", "", "+16502530000"},
		{"+1 650 253 0000", "GB", "+16502530000"}, // "+" wins over the country
		{"001 650 253 0000", "", "+16502530000"},
		{"  +16502530000  ", "", "+16502530000"},
		{"020 7031 3000", "GB", "+442070313000"},
		{"+44 20 7031 3000", "", "+442070313000"},
		{"0044 20 7031 3000", "US", "+442070313000"},
		{"01 42 68 53 00", "FR", "+33142685300"},
		{"030 303986300", "DE", "+4930303986300"},
		{"(416) 979-1234", "CA", "+14169791234"},
		{"06 12345678", "NL", "+31612345678"},
		{"0412 345 678", "AU", "+61412345678"},
	}
	for _, c := range cases {
		got, ok := loyalty.NormalizePhone(c.raw, c.country)
		if !ok || got != c.want {
			t.Errorf("NormalizePhone(%q, %q) = %q, %v; want %q, true", c.raw, c.country, got, ok, c.want)
		}
	}
	invalid := []struct{ raw, country string }{
		{"", "US"},
		{"   ", "US"},
		{"12", "US"},
		{"abc", "US"},
		{"555-0100", "US"},       // too short for the US
		{"650 253 0000", ""},     // local, and no country to read it with
		{"020 7031 3000", "XX"},  // unknown country
		{"+999 1234", ""},        // no such country code
		{"+1 650 253 00001", ""}, // too long
		{"020 7031 3000", "US"},  // a UK number read as a US one
	}
	for _, c := range invalid {
		if got, ok := loyalty.NormalizePhone(c.raw, c.country); ok {
			t.Errorf("NormalizePhone(%q, %q) = %q, true; want invalid", c.raw, c.country, got)
		}
	}
}

func TestValidCountry(t *testing.T) {
	for _, c := range []string{"US", "us", "GB", "FR", "CA", "DE"} {
		if !loyalty.ValidCountry(c) {
			t.Errorf("ValidCountry(%q) = false, want true", c)
		}
	}
	for _, c := range []string{"", "U", "USA", "XX", "ZZ", "1A"} {
		if loyalty.ValidCountry(c) {
			t.Errorf("ValidCountry(%q) = true, want false", c)
		}
	}
}

func TestPhoneRegion(t *testing.T) {
	for e164, want := range map[string]string{
		"+16502530000": "US", "+14169791234": "CA", "+442070313000": "GB", "+33142685300": "FR", "garbage": "",
	} {
		if got := loyalty.PhoneRegion(e164); got != want {
			t.Errorf("PhoneRegion(%q) = %q, want %q", e164, got, want)
		}
	}
}
