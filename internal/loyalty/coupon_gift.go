package loyalty

import (
	"context"
	"strings"
)

// GiftCoupon issues the customer a coupon of a coupon offer as a gift
// from the business: the offer's rules apply as to any coupon (active,
// its targets, its frequency), but its points are not taken. reason says
// why, kept as the entry's comments; it is required, since a gift is a
// cost the business chose to bear.
func (s *TransactionService) GiftCoupon(ctx context.Context, b Business, customerID string, offerID int64, reason string) (Transaction, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Transaction{}, Invalid("reason", "Say why the coupon is a gift: your team sees it in the customer's history and the audit log.")
	}
	in := TransactionInput{Intent: Some(IntentGetCoupon), Offer: Some(IntRef{ID: Some(offerID)}),
		Customer: Some(CustomerRef{ID: Some(customerID)}), Comments: Some(reason)}
	t, _, err := s.create(ctx, b, in, nil, entryOptions{gift: true})
	if e, ok := err.(*Error); ok && e.Code == EInvalid && len(e.Fields["comments"]) > 0 {
		e.Fields["reason"] = e.Fields["comments"]
		delete(e.Fields, "comments")
	}
	return t, err
}
