package console

import (
	"context"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Enrolment is how a walk-in joins at the counter or from the customer
// list: a short form, checked by the domain's rules for a new customer
// (the API's), in one audited change. Someone already a customer, found
// by the e-mail address or phone number typed, is served rather than
// refused.

// Enrolment is a new customer's details as the console's form gives them.
type Enrolment struct {
	FirstName, LastName string
	Email, Phone        string
	BirthDate           string // YYYY-MM-DD or empty
	// OffersByEmail and OffersBySMS are the marketing consent the customer
	// gives as they join (both off unless they say yes).
	OffersByEmail, OffersBySMS bool
}

// Enrolled is what an enrolment came to: the new customer, or the
// customer who already had the e-mail address or phone number.
type Enrolled struct {
	Customer loyalty.Customer
	Existing bool
}

// EnrolmentFrom is the form prefilled from what was typed at the
// counter: an e-mail address, a phone number, or a name (its first word
// the first name, the rest the last name).
func EnrolmentFrom(typed string) Enrolment {
	q := strings.Join(strings.Fields(typed), " ")
	switch {
	case q == "":
		return Enrolment{}
	case strings.Contains(q, "@"):
		return Enrolment{Email: q}
	case isPhoneLike(q):
		return Enrolment{Phone: q}
	case loyalty.ValidID(strings.ToLower(q)):
		// A customer code nobody has is no name.
		return Enrolment{}
	}
	first, last, _ := strings.Cut(q, " ")
	return Enrolment{FirstName: first, LastName: last}
}

// input is the enrolment as the domain's create body: a phone number
// without + is read in the business's country.
func (e Enrolment) input(country string) loyalty.CustomerInput {
	trim := func(s string) loyalty.Opt[string] { return loyalty.Some(strings.TrimSpace(s)) }
	in := loyalty.CustomerInput{FirstName: trim(e.FirstName), LastName: trim(e.LastName), Email: trim(e.Email),
		Phone: trim(e.Phone), BirthDate: trim(e.BirthDate)}
	if p := strings.TrimSpace(e.Phone); p != "" && !strings.HasPrefix(p, "+") && country != "" {
		in.CountryCode = loyalty.Some(country)
	}
	return in
}

// Enrol adds a customer to the actor's business; every role serving at
// the counter may. A person known to the service by the e-mail address
// or phone number joins with the details given; one already a customer
// of the business is returned as Existing, unchanged.
func (d *CustomerDesk) Enrol(ctx context.Context, a loyalty.Actor, e Enrolment) (Enrolled, error) {
	if err := a.Require(loyalty.PermCounter); err != nil {
		return Enrolled{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return Enrolled{}, err
	}
	if strings.TrimSpace(e.Email) == "" && strings.TrimSpace(e.Phone) == "" {
		v := loyalty.Validation{}
		v.Add("email", "Enter an e-mail address or a phone number.")
		v.Add("phone", "Enter a phone number or an e-mail address.")
		return Enrolled{}, v.Err()
	}
	in := e.input(b.Country)
	if e.OffersByEmail || e.OffersBySMS {
		in.Consent = &loyalty.ConsentGiven{ContactChannels: loyalty.ContactChannels{Email: e.OffersByEmail, SMS: e.OffersBySMS},
			Source: loyalty.ConsentFromConsole, By: a.Email}
	}
	target := customerName(loyalty.Customer{User: loyalty.User{FirstName: in.FirstName.V, LastName: in.LastName.V,
		Email: strings.ToLower(in.Email.V), Phone: in.Phone.V}})
	var out loyalty.Customer
	err = loyalty.Audited(a, loyalty.AuditCustomerCreated, target, nil, nil, func(r *loyalty.AuditRecord) error {
		var err error
		out, err = d.on(b).AuditedBy(r).Customers.Create(ctx, b, in)
		// The form has no country field: a local number is read in the business's country.
		return fieldsAs(err, map[string]string{"country_code": "phone"})
	})
	if loyalty.ErrorCode(err) != loyalty.EInvalid {
		return Enrolled{Customer: out}, err
	}
	// Refused: when the e-mail or the phone is a customer's already, the
	// cashier serves that customer.
	c, found, ferr := d.holder(ctx, b, e)
	if ferr != nil {
		return Enrolled{}, ferr
	}
	if found {
		return Enrolled{Customer: c, Existing: true}, nil
	}
	return Enrolled{}, err
}

// holder returns the customer of b with the enrolment's e-mail address,
// or else its phone number.
func (d *CustomerDesk) holder(ctx context.Context, b loyalty.Business, e Enrolment) (loyalty.Customer, bool, error) {
	for _, contact := range []string{e.Email, e.Phone} {
		if strings.TrimSpace(contact) == "" {
			continue
		}
		list, err := d.on(b).Customers.Lookup(ctx, b, contact)
		if loyalty.ErrorCode(err) == loyalty.EInvalid {
			continue // not a whole address or number: the refusal says so beside the field
		} else if err != nil {
			return loyalty.Customer{}, false, err
		}
		if len(list) > 0 {
			return list[0], true, nil
		}
	}
	return loyalty.Customer{}, false, nil
}
