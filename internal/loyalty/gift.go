package loyalty

import (
	"context"
)

// givePoints gives a customer points by an adjustment on the ledger's
// own road, saying why; it returns the entry's id.
func givePoints(ctx context.Context, tx Tx, b Business, customerID string, points int64, why string) (int64, error) {
	in := TransactionInput{Intent: Some(IntentAdjust), Points: Some(points),
		Customer: Some(CustomerRef{ID: Some(customerID)}), Comments: Some(why)}
	req, err := check(b, &in, tx.Now())
	if err != nil {
		return 0, err
	}
	req.stamp(tx.Now())
	// An adjustment's apply reads nothing of the service.
	if err := req.intent.apply(ctx, nil, tx, req); err != nil {
		return 0, err
	}
	return req.entry.ID, nil
}

// giveCoupon gives a customer a coupon of an offer as a gift (its points
// not taken), on the ledger's own road: the offer's rules hold (active,
// targets, frequency). It returns the entry's id.
func giveCoupon(ctx context.Context, tx Tx, b Business, customerID string, offerID int64, why string) (int64, error) {
	in := TransactionInput{Intent: Some(IntentGetCoupon), Offer: Some(IntRef{ID: Some(offerID)}),
		Customer: Some(CustomerRef{ID: Some(customerID)}), Comments: Some(why)}
	req, err := check(b, &in, tx.Now())
	if err != nil {
		return 0, err
	}
	req.gift = true
	req.stamp(tx.Now())
	// A coupon's apply reads nothing of the service.
	if err := req.intent.apply(ctx, nil, tx, req); err != nil {
		return 0, err
	}
	return req.entry.ID, nil
}
