package loyalty

import "errors"

// Refusal is why a balance move was refused. The store's conditional
// update refuses a move that breaks the balance rule (see
// TransactionTx.Append); the domain decides which part of the rule it
// broke, from the customer's row as the store read it (RefusalFor), and
// words it.
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

// BalanceFacts are what the store read of a customer whose balance move
// was refused: the row, and the facts of the entry's branch and reversal.
type BalanceFacts struct {
	Found    bool  // a customer of the business by that id
	Deleted  bool  // deleted
	Enabled  bool  // not deactivated
	Giftcard Money // the gift-card balance
	BranchOK bool  // the entry names no branch, or one of the business's
	Reversed bool  // the entry it reverses (if any) was reversed already
}

// RefusalFor decides which part of the balance rule refused e's move: an
// active customer of the business, the entry's branch one of the
// business's, a reversal once only, neither balance below zero.
func RefusalFor(f BalanceFacts, e *Transaction) error {
	switch {
	case !f.Found || f.Deleted:
		return Refused(RefusedCustomer)
	case !f.BranchOK:
		return Refused(RefusedBranch)
	case !f.Enabled:
		return Refused(RefusedDisabled)
	case f.Reversed:
		return Refused(RefusedReversed)
	case f.Giftcard+e.Giftcard < 0:
		return Refused(RefusedGiftcard)
	}
	return Refused(RefusedPoints)
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
