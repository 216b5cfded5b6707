package loyalty

import "context"

// giftcardBuyIntent sells a gift card: its value is added to the
// customer's gift-card balance.
type giftcardBuyIntent struct{}

func (giftcardBuyIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	e.GiftcardID = ref(v, "giftcard", in.Giftcard)
}

func (giftcardBuyIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	g, err := tx.Giftcard(ctx, r.b.ID, e.GiftcardID)
	if err == nil && g.Deleted {
		err = Errorf(ENotFound, "deleted")
	}
	if err != nil {
		return notFoundField(err, "Gift card not found.")
	}
	if !g.Available(tx.Now()) {
		return Invalid("giftcard.id", "The gift card is not available.")
	}
	e.Amount, e.Giftcard = g.RealValue, g.DiscountValue
	return tx.Append(ctx, e)
}

// giftcardPayIntent pays an amount from the gift-card balance.
type giftcardPayIntent struct{}

func (giftcardPayIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	e.Amount = in.positiveAmount(v)
	e.Giftcard = -e.Amount
}

func (giftcardPayIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	return tx.Append(ctx, &r.entry)
}

// storeCreditIntent adds money to the gift-card balance.
type storeCreditIntent struct{}

func (storeCreditIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	e.Amount = in.positiveAmount(v)
	e.Giftcard = e.Amount
}

func (storeCreditIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	return tx.Append(ctx, &r.entry)
}
