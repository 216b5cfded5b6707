package loyalty

import "errors"

// Refusal is why the store would not move a balance. The store decides
// the reason, in the statement that moves the balance; the domain words it.
type Refusal string

// The reasons a balance move is refused.
const (
	RefusedCustomer Refusal = "customer" // no active customer of the business by that id
	RefusedDisabled Refusal = "disabled" // the customer is deactivated
	RefusedBranch   Refusal = "branch"   // the entry's branch is not one of the business's
	RefusedReversed Refusal = "reversed" // the entry it reverses was already reversed
	RefusedPoints   Refusal = "points"   // the points balance would go below zero
	RefusedGiftcard Refusal = "giftcard" // the gift-card balance would go below zero
)

// Refused returns the error for a refused balance move, worded for the
// client.
func Refused(r Refusal) error {
	var err *Error
	switch r {
	case RefusedCustomer:
		err = Errorf(ENotFound, "Customer not found.")
	case RefusedDisabled:
		err = invalid("customer", "The customer is deactivated.")
	case RefusedBranch:
		err = Errorf(ENotFound, "The branch does not exist.")
	case RefusedReversed:
		err = invalid("id", "The transaction has already been cancelled.")
	case RefusedGiftcard:
		err = invalid("amount", "The customer's gift-card balance is not enough for this transaction.")
	default:
		err = invalid("points", "The customer's points balance is not enough for this transaction.")
	}
	err.Refusal = r
	return err
}

// RefusalOf returns the reason err refused a balance move, "" when it is
// no refusal.
func RefusalOf(err error) Refusal {
	var e *Error
	if errors.As(err, &e) {
		return e.Refusal
	}
	return ""
}

// invalid is Invalid as an *Error.
func invalid(field, msg string) *Error {
	return &Error{Code: EInvalid, Message: "The given data was invalid.", Fields: map[string][]string{field: {msg}}}
}
