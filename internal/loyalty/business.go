package loyalty

import (
	"net/mail"
	"strings"
	"time"
)

// Loyalty types of a business.
const (
	PerSpend = "per_spend"
	PerVisit = "per_visit"
)

// Business is a merchant running a loyalty program.
type Business struct {
	ID          string
	CoalitionID string // empty when the business stands alone
	Name        string
	LoyaltyType string
	About       string
	Logo        string
	Cover       string
	Country     string // ISO 3166-1 alpha-2, how local phone numbers are read and amounts written
	Currency    string // ISO 4217 code of the money its amounts are in
	CreatedAt   time.Time
	Sandbox     bool           // a business for testing, whose clock can be moved forward
	ClockOffset time.Duration  // how far the business's clock is ahead of the real one (sandbox only)
	Loaded      *BusinessState // what was read with the business for a transaction, if it was
	// NeverExpires: no point of the business has ever had an expiry, as
	// the request's token lookup read it (Tenant.NeverExpires); false
	// when not known. A customer's read then skips looking for expiring
	// points.
	NeverExpires bool
}

// BusinessState is what the ledger needs of a business, read in the same
// query as the business so a reward costs fewer round trips.
type BusinessState struct {
	Rules           Rules
	HasPointsOffers bool // some multiplier or bonus offer may apply
	// PointsOffers are, when OffersRead, every points offer of the
	// business that is not deleted (OfferFinder.PointsOffers), read with
	// it: a reward then decides its offers without reading them again.
	PointsOffers []Offer
	OffersRead   bool
	// HasEarningRules: the business has earning rules (not deleted);
	// when EarningRead, EarningRules are all of them, read with it.
	HasEarningRules bool
	EarningRules    []EarningRule
	EarningRead     bool
	book            *ruleBook // the rules compiled (SetEarningRules)
	// HasPunchCards: the business has punch cards (not deleted); when
	// CardsRead, PunchCards are all of them, read with it.
	HasPunchCards bool
	PunchCards    []PunchCard
	CardsRead     bool
}

// Owner is the account that signs in for a business.
type Owner struct {
	ID         string
	BusinessID string
	Email      string
	Username   string
	FirstName  string
	LastName   string
}

// Branch is a location of a business.
type Branch struct {
	ID         string
	BusinessID string
	Name       string
	WebSite    string
	IsMain     bool
	Address    BranchAddress
}

// BranchAddress is where a branch is: a formatted street line, city,
// region and country ("" when unknown) and its coordinates (nil when
// unknown).
type BranchAddress struct {
	Formatted, City, Region, Country string
	Lat, Long                        *float64
}

// Account is what GET /me shows: the signed-in owner and the business.
type Account struct {
	Owner    Owner
	Business Business
}

// Tenant is what an Application Key opens: one business, or a coalition of
// several.
type Tenant struct {
	Key         string
	BusinessID  string        // set for a business key
	CoalitionID string        // set for a coalition key
	ClockOffset time.Duration // how far the business's clock is ahead (a sandbox business)
	// NeverExpires is true when no point of the business has ever been
	// given an expiry (its rules never had one), so that no customer has
	// points expiring; false when they may, or when it is not known.
	NeverExpires bool
}

// ID returns the id of the business or coalition the key belongs to.
func (t Tenant) ID() string {
	if t.BusinessID != "" {
		return t.BusinessID
	}
	return t.CoalitionID
}

// NewBusiness is what support gives to create a business.
type NewBusiness struct {
	Name          string
	LoyaltyType   string
	Country       string
	Currency      string // ISO 4217; the country's when empty
	OwnerEmail    string
	OwnerPassword string
	CoalitionID   string
	Sandbox       bool // a business for testing, with a clock of its own
}

// CreatedBusiness is what creating a business yields.
type CreatedBusiness struct {
	BusinessID     string
	ApplicationKey string
	OwnerID        string
}

// Validate checks a NewBusiness, naming each bad field.
func (n *NewBusiness) Validate() error {
	v := Validation{}
	n.Name = strings.TrimSpace(n.Name)
	if n.Name == "" || len(n.Name) > 200 {
		v.Add("name", "The name is required (at most 200 characters).")
	}
	if n.LoyaltyType != PerSpend && n.LoyaltyType != PerVisit {
		v.Add("loyalty_type", "The loyalty type must be per_spend or per_visit.")
	}
	if n.Country == "" {
		n.Country = "US"
	}
	n.Country = strings.ToUpper(n.Country)
	if !ValidCountry(n.Country) {
		v.Add("country", "The country must be an ISO 3166-1 alpha-2 code.")
	}
	if n.Currency == "" {
		n.Currency = DefaultCurrency(n.Country)
	} else if code, ok := NormalizeCurrency(n.Currency); ok {
		n.Currency = code
	} else {
		v.Add("currency", currencyMessage)
	}
	email, ok := NormalizeEmail(n.OwnerEmail)
	if !ok {
		v.Add("owner_email", "The owner e-mail must be a valid e-mail address.")
	}
	n.OwnerEmail = email
	if len(n.OwnerPassword) < 8 || len(n.OwnerPassword) > 200 {
		v.Add("owner_password", "The owner password must have 8 to 200 characters.")
	}
	if n.CoalitionID != "" && !ValidID(n.CoalitionID) {
		v.Add("coalition", "The coalition id is not a valid id.")
	}
	if n.Sandbox && n.CoalitionID != "" {
		// The members of a coalition share one Application Key, and so one clock.
		v.Add("sandbox", "A sandbox business stands alone: it cannot join a coalition.")
	}
	return v.Err()
}

// NormalizeEmail validates an e-mail address and returns its canonical,
// lower-case form.
func NormalizeEmail(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 254 {
		return "", false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
		return "", false
	}
	return strings.ToLower(s), true
}
