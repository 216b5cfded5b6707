package loyalty

import "context"

// giftcardBuyIntent sells gift-card credit in store: the amount paid is
// added to the customer's gift-card balance. With a gift card of the
// catalog, the card's value is added and the amount, when sent, must be
// the card's price.
type giftcardBuyIntent struct{}

func (giftcardBuyIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentGiftcardBuy, "points", "visits")
	if in.Giftcard.Set {
		e.GiftcardID = ref(v, "giftcard", in.Giftcard)
		if in.Amount.Set {
			e.Amount = in.positiveAmount(v)
		}
		return
	}
	if !in.Amount.Set {
		v.Add("amount", "The amount field is required: the gift-card credit bought (or name a gift card with giftcard.id).")
		v.Add("giftcard.id", "The giftcard.id field is required when no amount is given.")
		return
	}
	e.Amount = in.positiveAmount(v)
	e.Giftcard = e.Amount
}

func (giftcardBuyIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	if e.GiftcardID == 0 {
		return appendEntry(ctx, tx, e)
	}
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
	if e.Amount != 0 && e.Amount != g.RealValue {
		return Invalid("amount", "The amount must be the gift card's price, "+g.RealValue.String()+" ("+r.b.FormatMoney(g.RealValue)+"), or leave amount out.")
	}
	e.Amount, e.Giftcard = g.RealValue, g.DiscountValue
	return appendEntry(ctx, tx, e)
}

// giftcardPayIntent pays an amount from the gift-card balance.
type giftcardPayIntent struct{}

func (giftcardPayIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentGiftcardPay, "points", "visits")
	e.Amount = in.positiveAmount(v)
	e.Giftcard = -e.Amount
}

func (giftcardPayIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	return appendEntry(ctx, tx, &r.entry)
}

// storeCreditIntent adds money to the gift-card balance.
type storeCreditIntent struct{}

func (storeCreditIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentStoreCredit, "points", "visits")
	e.Amount = in.positiveAmount(v)
	e.Giftcard = e.Amount
}

func (storeCreditIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	return appendEntry(ctx, tx, &r.entry)
}
