package loyalty

import (
	"context"
	"strings"
)

// LookupLimit is the most customers one look-up returns.
const LookupLimit = 10

// Lookup finds the active customers of a business by e-mail address or
// phone number, as typed at a counter: an address with "@" is matched
// exactly (case aside), anything else is read as a phone number of the
// business's country. Each comes with its balance.
func (s *CustomerService) Lookup(ctx context.Context, b Business, contact string) ([]Customer, error) {
	contact = strings.TrimSpace(contact)
	var f Filter
	if strings.Contains(contact, "@") {
		email, ok := NormalizeEmail(contact)
		if !ok {
			return nil, Invalid("q", "Enter a whole e-mail address, such as ann@example.com.")
		}
		f = Filter{Field: "email", Op: OpEq, Values: []any{email}}
	} else {
		phone, ok := NormalizePhone(contact, b.Country)
		if !ok {
			return nil, Invalid("q", "Enter an e-mail address or a whole phone number.")
		}
		f = Filter{Field: "phone", Op: OpEq, Values: []any{phone}}
	}
	list, _, err := s.Store.Customers(ctx, b.ID, ListQuery{Filters: []Filter{f}, Page: 1, PerPage: LookupLimit})
	return list, err
}
