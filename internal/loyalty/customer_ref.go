package loyalty

import (
	"encoding/json"
	"strings"
)

// customerID returns the customer id a reference names, if it names one
// by id (ok), or a bad-request error for an id that cannot be one.
func (ref CustomerRef) customerID() (id string, ok bool, err error) {
	id, ok = ref.ID.Value()
	if !ok || id == "" {
		return "", false, nil
	}
	if id = strings.ToLower(id); !ValidID(id) {
		return "", true, Errorf(EBadRequest, "Invalid customer id supplied.")
	}
	return id, true, nil
}

// contact checks the e-mail or phone a reference names a customer by,
// normalised with the business's country; errors name customer.<field>.
func (ref CustomerRef) contact(b Business) (User, error) {
	in := CustomerInput{Email: ref.Email, Phone: ref.Phone, CountryCode: ref.CountryCode}
	v := Validation{}
	var u User
	in.validateProfile(v, &u, b.Country)
	prefixed := Validation{}
	for k, msgs := range v {
		prefixed["customer."+k] = msgs
	}
	if u.Email == "" && u.Phone == "" && len(v) == 0 {
		prefixed.Add("customer", "The customer needs an id, an email, or a phone with country_code.")
	}
	return u, prefixed.Err()
}

// CustomerRef names a customer by id, e-mail, or phone with country.
type CustomerRef struct {
	ID          Opt[string] `json:"id"`
	Email       Opt[string] `json:"email"`
	Phone       Opt[string] `json:"phone"`
	CountryCode Opt[string] `json:"country_code"`
	// PinCode is the customer's PIN confirming the transaction; no
	// transaction is confirmed by PIN here, so it is refused.
	PinCode Opt[json.RawMessage] `json:"pin_code"`
}
