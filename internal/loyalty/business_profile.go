package loyalty

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // time zones are checked the same on every machine
	"unicode/utf8"
)

// BusinessCategories are the kinds of business a profile may name.
var BusinessCategories = []string{"bakery", "bar", "beauty", "cafe", "entertainment", "fashion", "fitness", "grocery",
	"health", "restaurant", "retail", "services", "travel", "other"}

// BusinessProfile is how a business presents itself: to its customers on
// the referral page and in their e-mails, and in the console.
type BusinessProfile struct {
	Name       string
	About      string
	Logo       string // an https:// address, or a path on this service
	Cover      string
	Category   string // one of BusinessCategories, or ""
	Currency   string // the ISO 4217 code of the money its amounts are in, such as "EUR"
	TimeZone   string // an IANA name, such as "Europe/Paris"
	BrandColor string // "#rrggbb", or "" for Loyalty's own
}

// Location is the profile's time zone, UTC when it has none.
func (p BusinessProfile) Location() *time.Location {
	if loc, err := time.LoadLocation(p.TimeZone); err == nil && p.TimeZone != "" {
		return loc
	}
	return time.UTC
}

var brandColor = regexp.MustCompile(`^#[0-9a-f]{6}$`)

// Normalize trims and checks every field of the profile, naming each
// bad one: the rules a profile obeys before it is stored.
func (p *BusinessProfile) Normalize() error {
	v := Validation{}
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" || utf8.RuneCountInString(p.Name) > 200 {
		v.Add("name", "The name is required (at most 200 characters).")
	}
	p.About = strings.TrimSpace(p.About)
	if utf8.RuneCountInString(p.About) > 1000 {
		v.Add("about", "The about text may not be greater than 1000 characters.")
	}
	for field, dst := range map[string]*string{"logo": &p.Logo, "cover": &p.Cover} {
		*dst = strings.TrimSpace(*dst)
		if *dst != "" && !imageAddress(*dst) {
			v.Add(field, "Enter an https:// address of an image (at most 500 characters).")
		}
	}
	p.Category = strings.TrimSpace(p.Category)
	if p.Category != "" && !slices.Contains(BusinessCategories, p.Category) {
		v.Add("category", "Choose a category from the list.")
	}
	if code, ok := NormalizeCurrency(p.Currency); ok {
		p.Currency = code
	} else {
		v.Add("currency", currencyMessage)
	}
	p.TimeZone = strings.TrimSpace(p.TimeZone)
	if _, err := time.LoadLocation(p.TimeZone); err != nil || p.TimeZone == "" || p.TimeZone == "Local" {
		v.Add("time_zone", "Enter a time zone by its IANA name, such as America/New_York or Europe/Paris.")
	}
	p.BrandColor = strings.ToLower(strings.TrimSpace(p.BrandColor))
	if p.BrandColor != "" && !brandColor.MatchString(p.BrandColor) {
		v.Add("brand_color", "The brand colour is written #rrggbb, such as #4338ca.")
	}
	return v.Err()
}

// imageAddress reports whether s may be shown as a business's image: an
// https:// address, or a path on this service.
func imageAddress(s string) bool {
	if len(s) > 500 {
		return false
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	if u.Scheme == "" && u.Host == "" {
		return strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//")
	}
	return u.Scheme == "https" && u.Host != "" && u.User == nil
}
