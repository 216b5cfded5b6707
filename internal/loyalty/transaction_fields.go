package loyalty

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds of the fields every intent shares.
const (
	maxReceipt  = 255
	maxComments = 1000
	// clockSkew is how far ahead of ours a client's clock may be: a
	// created_at up to this far in the future is taken as now, one
	// further ahead is refused.
	clockSkew = 2 * time.Minute
)

// shared checks the fields every intent may carry, with no I/O: when it
// happened (created_at, for imports), the receipt number and comments it
// keeps, and the reference platform's fields that nothing here can honour
// (employee, product_rewards, customer.pin_code), which are refused by
// name rather than dropped. It reports the time the client gave, zero when
// it gave none.
func (in *TransactionInput) shared(v Validation, e *Transaction, now time.Time) time.Time {
	var at time.Time
	if s, ok := in.CreatedAt.Value(); ok {
		t, err := ParseTime(strings.TrimSpace(s))
		switch {
		case err != nil || t.Year() < 1970:
			v.Add("created_at", "The created_at must be a date-time such as 2026-01-31T09:05:00+00:00.")
		case t.After(now.Add(clockSkew)):
			v.Add("created_at", "The created_at may not be in the future.")
		case t.After(now):
			at = now
		default:
			at = t
		}
	}
	if r, ok := in.Receipt.Value(); ok {
		n, _ := r.Number.Value()
		if n = strings.TrimSpace(n); utf8.RuneCountInString(n) > maxReceipt {
			v.Add("receipt.number", "The receipt number may not be greater than "+itoa(maxReceipt)+" characters.")
		}
		e.Receipt = n
	}
	if c, ok := in.Comments.Value(); ok {
		if c = strings.TrimSpace(c); utf8.RuneCountInString(c) > maxComments {
			v.Add("comments", "The comments may not be greater than "+itoa(maxComments)+" characters.")
		}
		e.Comments = c
	}
	if emp, ok := in.Employee.Value(); ok {
		if _, ok := emp.ID.Value(); ok {
			v.Add("employee.id", "Employees are not kept here, so a transaction cannot name one; leave employee.id out.")
		}
		if _, ok := emp.PinCode.Value(); ok {
			v.Add("employee.pin_code", "Employees are not kept here, so no employee PIN can be checked; leave employee.pin_code out.")
		}
	}
	if pr, ok := in.ProductRewards.Value(); ok && len(pr) > 0 {
		v.Add("product_rewards", "Product rewards (à la carte) are not offered here; leave product_rewards out.")
	}
	if e.Intent != IntentReward {
		for name, set := range map[string]bool{"items": in.Items.Set && e.Intent != IntentReturn, "tax": in.Tax.Set,
			"shipping": in.Shipping.Set, "channel": in.Channel.Set} {
			if set {
				v.Add(name, "A basket (items, tax, shipping, channel) goes with a reward only; a return takes items with its reverses_id.")
			}
		}
	}
	if in.ReversesID.Set && e.Intent != IntentReturn {
		v.Add("reverses_id", "Only a return names the reward it returns (reverses_id); DELETE /transactions/{id} cancels an entry.")
	}
	if ref, ok := in.Customer.Value(); ok {
		if _, ok := ref.PinCode.Value(); ok {
			v.Add("customer.pin_code", "Transactions are not confirmed with the customer's PIN here; leave customer.pin_code out.")
		}
	}
	return at
}

// unused refuses, by name, each of the amount, points and visits fields
// that was sent to an intent that does not use it: a field the reference
// documents is honoured or refused, never dropped.
func (in *TransactionInput) unused(v Validation, intent string, fields ...string) {
	sent := map[string]bool{"amount": in.Amount.Set, "points": in.Points.Set, "visits": in.Visits.Set}
	for _, f := range fields {
		if sent[f] && !v.Has(f) {
			v.Add(f, "The "+f+" field is not used by the "+intent+" intent; leave it out.")
		}
	}
}
