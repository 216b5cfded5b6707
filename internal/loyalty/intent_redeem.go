package loyalty

import "context"

// redeemIntent spends points, given directly or as the cost of catalog
// items.
type redeemIntent struct{}

func (redeemIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	if in.Amount.Set {
		v.Add("amount", "Redeeming by amount is not offered here (no redemption value is set); redeem points or catalog_items.")
	}
	in.unused(v, IntentRedeem, "visits")
	which := onlyOne(v, []string{"points", "catalog_items"}, []bool{in.Points.Set, in.CatalogItems.Set})
	if which == 0 {
		p, ok := in.Points.Value()
		if !ok || p <= 0 || p > maxPoints {
			v.Add("points", "The points must be a whole number greater than 0.")
		}
		e.Points = -p
	}
	if which != 1 {
		return
	}
	items, _ := in.CatalogItems.Value()
	if len(items) == 0 || len(items) > 100 {
		v.Add("catalog_items", "Between 1 and 100 catalog items are required.")
		return
	}
	e.Name = "Redemption"
	seen := map[int64]bool{}
	for i, it := range items {
		field := "catalog_items." + itoa(i)
		id, ok := it.ID.Value()
		if !ok || id <= 0 {
			v.Add(field+".id", "The catalog item id is required.")
			return
		}
		qty := int64(1)
		if q, ok := it.Quantity.Value(); ok {
			qty = q
		}
		if qty <= 0 || qty > 1000 {
			v.Add(field+".quantity", "The quantity must be between 1 and 1000.")
			return
		}
		if seen[id] {
			v.Add(field+".id", "Each catalog item may appear once; use quantity.")
			return
		}
		seen[id] = true
		e.Items = append(e.Items, TransactionItem{RewardID: id, Quantity: qty})
	}
}

func (redeemIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	total := int64(0)
	for i := range e.Items {
		it := &e.Items[i]
		field := "catalog_items." + itoa(i)
		rw, err := tx.Reward(ctx, r.b.ID, it.RewardID)
		if err == nil && (rw.Kind != CatalogItem || rw.Deleted) {
			err = Errorf(ENotFound, "not a catalog item")
		}
		if err != nil {
			return notFoundField(err, "Catalog item "+itoa(int(it.RewardID))+" not found.")
		}
		if !rw.Available(tx.Now()) {
			return Invalid(field+".id", "The catalog item is not available.")
		}
		it.Points = rw.Points * it.Quantity
		total += it.Points
	}
	if len(e.Items) > 0 {
		e.Points = -total
	}
	return tx.Append(ctx, e)
}

// adjustIntent moves points up or down by hand; it never takes a balance
// below zero.
type adjustIntent struct{}

func (adjustIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentAdjust, "amount", "visits")
	p, ok := in.Points.Value()
	if !ok || p == 0 || p > maxPoints || p < -maxPoints {
		v.Add("points", "The points must be a non-zero whole number.")
	}
	e.Points = p
}

func (adjustIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	return tx.Append(ctx, &r.entry)
}

// refundIntent gives back redeemed points: it adds them to the balance
// without counting them towards tiers.
type refundIntent struct{}

func (refundIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentRefund, "amount", "visits")
	p, ok := in.Points.Value()
	if !ok || p <= 0 || p > maxPoints {
		v.Add("points", "The points must be a whole number greater than 0.")
	}
	e.Points = p
}

func (refundIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	return tx.Append(ctx, &r.entry)
}
