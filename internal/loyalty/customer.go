package loyalty

import (
	"strings"
	"time"
)

// Languages and genders a customer may have.
var (
	Languages = []string{"en", "fr", "es"}
	Genders   = []string{"male", "female"}
)

// User is a person. The same person may be a customer of several businesses;
// the customer id is the user id.
type User struct {
	ID           string
	Email        string // lower-case; empty when the person has none
	Phone        string // E.164; empty when the person has none
	CountryCode  string // ISO 3166-1 alpha-2 of the phone
	FirstName    string
	LastName     string
	BirthDate    string // YYYY-MM-DD or empty
	Language     string
	Gender       string
	ProfilePhoto string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Label names a person (a customer) as the audit log does: "Ann Lee
// <ann@x.example>", or what of it is known (the phone when there is no
// e-mail); "" when nothing is.
func (u User) Label() string {
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	contact := u.Email
	if contact == "" {
		contact = u.Phone
	}
	switch {
	case name == "":
		return contact
	case contact == "":
		return name
	}
	return name + " <" + contact + ">"
}

// Address is a customer's postal address as one business knows it.
type Address struct {
	Street      string   `json:"street"`
	City        string   `json:"city"`
	Region      string   `json:"region"`
	Country     string   `json:"country"`
	CountryCode string   `json:"country_code"`
	ZipCode     string   `json:"zip_code"`
	Lat         *float64 `json:"lat"`
	Long        *float64 `json:"long"`
}

// IsZero reports whether no part of the address is known.
func (a Address) IsZero() bool { return a == Address{} }

// Balance is what a customer holds with one business.
type Balance struct {
	Points   int64 // active: usable now
	Giftcard Money
	Pending  int64 // earned, usable once their lots activate
	Expired  int64 // every point that ever expired
	// The points of the lots that expire next and when; read only where
	// a reply shows them (zero otherwise, and when nothing expires).
	Expiring   int64
	ExpiringAt time.Time
}

// Customer is a person's membership in one business.
type Customer struct {
	User
	BusinessID string
	Enabled    bool
	Address    Address
	Balance    Balance
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Deleted    bool
}

// AddressInput is the address object of a create or update body.
type AddressInput struct {
	Street      Opt[string]  `json:"street"`
	City        Opt[string]  `json:"city"`
	Region      Opt[string]  `json:"region"`
	Country     Opt[string]  `json:"country"`
	CountryCode Opt[string]  `json:"country_code"`
	ZipCode     Opt[string]  `json:"zip_code"`
	Lat         Opt[float64] `json:"lat"`
	Long        Opt[float64] `json:"long"`
}

// ReferralInput names who referred a new customer, and under which program.
type ReferralInput struct {
	ProgramID  Opt[int64]  `json:"referral_program_id"`
	ReferrerID Opt[string] `json:"referrer_id"`
}

// CustomerInput is the body of a customer create or update. Every field
// records whether it was sent.
type CustomerInput struct {
	Email       Opt[string]        `json:"email"`
	Phone       Opt[string]        `json:"phone"`
	CountryCode Opt[string]        `json:"country_code"`
	FirstName   Opt[string]        `json:"first_name"`
	LastName    Opt[string]        `json:"last_name"`
	BirthDate   Opt[string]        `json:"birth_date"`
	Language    Opt[string]        `json:"language"`
	Gender      Opt[string]        `json:"gender"`
	Enabled     Opt[bool]          `json:"enabled"`
	Address     Opt[AddressInput]  `json:"address"`
	Referral    Opt[ReferralInput] `json:"referral"`
	// Consent, when set, is the marketing consent the new customer gave
	// where they joined (the console's enrolment), recorded with the
	// customer in its transaction. No body sets it.
	Consent *ConsentGiven `json:"-"`
}

// ConsentGiven is a consent given with the customer's creation: what it
// allows, where it was given and by whom it was recorded.
type ConsentGiven struct {
	ContactChannels
	Source, By string
}

// validateProfile checks the person fields of in and applies them to u,
// reading a local phone number with defaultCountry when no country_code is
// sent. It records problems in v.
func (in *CustomerInput) validateProfile(v Validation, u *User, defaultCountry string) {
	if in.Email.Set {
		if e, ok := in.Email.Value(); ok && strings.TrimSpace(e) != "" {
			if norm, ok := NormalizeEmail(e); ok {
				u.Email = norm
			} else {
				v.Add("email", "The email must be a valid email address.")
			}
		} else {
			u.Email = ""
		}
	}
	country, hasCountry := in.CountryCode.Value()
	if hasCountry {
		country = strings.ToUpper(strings.TrimSpace(country))
		if !ValidCountry(country) {
			v.Add("country_code", "The country code must be an ISO 3166-1 alpha-2 code.")
		}
	}
	if in.Phone.Set {
		if p, ok := in.Phone.Value(); ok && strings.TrimSpace(p) != "" {
			switch {
			case !hasCountry && !strings.HasPrefix(strings.TrimSpace(p), "+"):
				v.Add("country_code", "The country code field is required when phone is present.")
			case !v.Has("country_code"):
				if norm, ok := NormalizePhone(p, country); ok {
					u.Phone = norm
					u.CountryCode = country
					if u.CountryCode == "" {
						u.CountryCode = PhoneRegion(norm)
					}
				} else {
					v.Add("phone", "The phone must be a valid phone number.")
				}
			}
		} else {
			u.Phone = ""
			u.CountryCode = ""
		}
	} else if hasCountry && u.Phone == "" && !v.Has("country_code") {
		u.CountryCode = country
	}
	setText(v, "first_name", in.FirstName, &u.FirstName, 100)
	setText(v, "last_name", in.LastName, &u.LastName, 100)
	if in.BirthDate.Set {
		if d, ok := in.BirthDate.Value(); ok && d != "" {
			t, err := time.Parse(time.DateOnly, d)
			if err != nil || t.After(time.Now()) || t.Year() < 1900 {
				v.Add("birth_date", "The birth date must be a past date of the form YYYY-MM-DD.")
			} else {
				u.BirthDate = d
			}
		} else {
			u.BirthDate = ""
		}
	}
	setEnum(v, "language", in.Language, &u.Language, Languages)
	setEnum(v, "gender", in.Gender, &u.Gender, Genders)
	_ = defaultCountry
}

func setText(v Validation, field string, o Opt[string], dst *string, max int) {
	if !o.Set {
		return
	}
	s := strings.TrimSpace(o.V)
	if len(s) > max {
		v.Add(field, "The "+strings.ReplaceAll(field, "_", " ")+" may not be greater than "+itoa(max)+" characters.")
		return
	}
	*dst = s
}

func setEnum(v Validation, field string, o Opt[string], dst *string, allowed []string) {
	if !o.Set {
		return
	}
	if o.Null || o.V == "" {
		*dst = ""
		return
	}
	for _, a := range allowed {
		if o.V == a {
			*dst = a
			return
		}
	}
	v.Add(field, "The selected "+field+" is invalid; allowed: "+strings.Join(allowed, ", ")+".")
}

// applyAddress merges an address input into a, validating it.
func (in *AddressInput) apply(v Validation, a *Address) {
	fields := []struct {
		name string
		o    Opt[string]
		dst  *string
	}{
		{"street", in.Street, &a.Street}, {"city", in.City, &a.City}, {"region", in.Region, &a.Region},
		{"country", in.Country, &a.Country}, {"zip_code", in.ZipCode, &a.ZipCode},
	}
	for _, f := range fields {
		setText(v, "address."+f.name, f.o, f.dst, 200)
	}
	if in.CountryCode.Set {
		cc := strings.ToUpper(strings.TrimSpace(in.CountryCode.V))
		if cc != "" && !ValidCountry(cc) {
			v.Add("address.country_code", "The country code must be an ISO 3166-1 alpha-2 code.")
		} else {
			a.CountryCode = cc
		}
	}
	setCoord(v, "address.lat", in.Lat, &a.Lat, 90)
	setCoord(v, "address.long", in.Long, &a.Long, 180)
}

func setCoord(v Validation, field string, o Opt[float64], dst **float64, limit float64) {
	if !o.Set {
		return
	}
	if o.Null {
		*dst = nil
		return
	}
	if o.V < -limit || o.V > limit {
		v.Add(field, "The "+field+" must be between -"+itoa(int(limit))+" and "+itoa(int(limit))+".")
		return
	}
	x := o.V
	*dst = &x
}
