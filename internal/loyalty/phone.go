package loyalty

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// NormalizePhone parses a phone number written in any common format and
// returns it in E.164. A number starting with "+" (or "00") needs no country;
// otherwise country (ISO 3166-1 alpha-2) says how to read it.
func NormalizePhone(raw, country string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false
	}
	region := strings.ToUpper(country)
	if strings.HasPrefix(raw, "+") || strings.HasPrefix(raw, "00") {
		region = "ZZ"
		raw = "+" + strings.TrimPrefix(strings.TrimPrefix(raw, "+"), "00")
	}
	num, err := phonenumbers.Parse(raw, region)
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return "", false
	}
	return phonenumbers.Format(num, phonenumbers.E164), true
}

// ValidCountry reports whether code is a known ISO 3166-1 alpha-2 region
// that has phone numbers.
func ValidCountry(code string) bool {
	if len(code) != 2 {
		return false
	}
	return phonenumbers.GetCountryCodeForRegion(strings.ToUpper(code)) != 0
}

// PhoneRegion returns the ISO region of an E.164 number, or "".
func PhoneRegion(e164 string) string {
	num, err := phonenumbers.Parse(e164, "ZZ")
	if err != nil {
		return ""
	}
	return phonenumbers.GetRegionCodeForNumber(num)
}
