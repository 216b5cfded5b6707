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

func (redeemIntent) apply(ctx context.Context, s *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	total := int64(0)
	who := redeemer{s: s, tx: tx, b: r.b, e: e}
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
		if err := who.may(ctx, rw, field); err != nil {
			return err
		}
		it.Points = rw.Points * it.Quantity
		total += it.Points
		// What the item's type gives: a free product's value, a cashback
		// (credited as gift-card balance in this same entry when the item
		// says so), or a percentage the point of sale applies.
		amount, giftcard := rw.Value(it.Quantity)
		e.Amount += amount
		e.Giftcard += giftcard
		it.Reward = &rw
	}
	if len(e.Items) > 0 {
		e.Points = -total
	}
	return appendEntry(ctx, tx, e)
}

// redeemer checks that the customer of a redemption may redeem each
// catalog item: one of its audience, at one of its branches.
type redeemer struct {
	s      *TransactionService
	tx     Tx
	b      Business
	e      *Transaction
	level  *int64 // the customer's tier level, read once when an item needs it
	branch string // the entry's branch, the main one when it names none
}

// may refuses an item the customer may not redeem here.
func (w *redeemer) may(ctx context.Context, rw Reward, field string) error {
	if rw.Audience == AudienceTiers && w.level == nil {
		level, err := customerLevel(ctx, w.s.Store, w.b.ID, w.e.CustomerID)
		if err != nil {
			return err
		}
		w.level = &level
	}
	level := int64(0)
	if w.level != nil {
		level = *w.level
	}
	if !rw.OpenTo(w.e.CustomerID, level) {
		return Invalid(field+".id", "The catalog item is not available to this customer.")
	}
	if len(rw.BranchIDs) > 0 && w.branch == "" {
		w.branch = w.e.BranchID
		if w.branch == "" {
			m, err := w.tx.MainBranch(ctx, w.b.ID)
			if err != nil {
				return err
			}
			w.branch = m.ID
		}
	}
	if !rw.AvailableAt(w.branch) {
		return Invalid(field+".id", "The catalog item is not available at this branch.")
	}
	return nil
}

// customerLevel returns the id of the level a customer holds in the
// business's enabled tier program, 0 for none.
func customerLevel(ctx context.Context, st Store, businessID, customerID string) (int64, error) {
	tiers, err := st.Tiers(ctx, businessID)
	if err != nil {
		return 0, err
	}
	t, ok := EnabledTier(tiers)
	if !ok {
		return 0, nil
	}
	status, err := tierStatus(ctx, st, businessID, customerID, t)
	if err != nil || status.Level == nil {
		return 0, err
	}
	return status.Level.ID, nil
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
	return appendEarning(ctx, tx, r.b, &r.entry)
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
	return appendEarning(ctx, tx, r.b, &r.entry)
}
