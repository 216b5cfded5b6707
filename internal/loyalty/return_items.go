package loyalty

import (
	"context"
	"slices"
	"strings"
)

// A return by item names the reward it returns (reverses_id) and, line by
// line, the units returned (items: [{sku, quantity}]); without items it
// returns every unit not yet returned. It takes back exactly what those
// units earned: each line of a reward's basket keeps its share of every
// rule that applied to it (Earning.LinePoints), and k of a line's q units
// take back share × (r+k)/q − share × r/q, r the units returned before,
// rounded down, so that the returns of all of a line's units take back
// its whole share and never more. The return that leaves no unit of the
// reward unreturned also takes back what no line earned (what tax or
// shipping earned): a reward is never taken back twice, nor more than it
// gave. Returning more units than remain is refused (items.i.quantity), as
// is a SKU the reward did not hold (items.i.sku). As every return, it
// takes back no more than the customer holds. Several returns of one
// reward wait for each other (LockEntry), so two at once cannot return
// the same units.

// ReturnTx is what a return by item reads and locks in its transaction.
type ReturnTx interface {
	// LockEntry holds an entry of a business until the transaction ends,
	// so that changes decided from it wait for each other.
	LockEntry(ctx context.Context, businessID string, id int64) error
	// ReturnBaskets returns the baskets of the returns by item of a
	// reward, by entry id.
	ReturnBaskets(ctx context.Context, businessID string, rewardID int64) (map[int64]*Basket, error)
	// ReversedBy returns the id of the entry that cancels entry id (0:
	// none).
	ReversedBy(ctx context.Context, businessID string, id int64) (int64, error)
	// Baskets returns the baskets of the entries ids that have one.
	Baskets(ctx context.Context, businessID string, ids []int64) (map[int64]*Basket, error)
}

// returnItemsInput reads a return by item's lines: a SKU and a quantity
// each, no price (the reward's is taken), into e.Basket.
func (in *TransactionInput) returnItems(v Validation, e *Transaction) {
	e.Basket = &Basket{Lines: []BasketLine{}}
	items, _ := in.Items.Value()
	if in.Items.Set && (in.Items.Null || len(items) == 0) {
		v.Add("items", "The items must hold at least one line: {sku, quantity}; leave items out to return every unit.")
	}
	if len(items) > maxBasketLines {
		v.Add("items", "A return may hold at most "+itoa(maxBasketLines)+" lines.")
		items = nil
	}
	for i, it := range items {
		f := "items." + itoa(i) + "."
		l := BasketLine{Quantity: 1}
		if sku, ok := it.SKU.Value(); !ok || strings.TrimSpace(sku) == "" {
			v.Add(f+"sku", "The sku field is required: the SKU of the reward's line returned.")
		} else {
			l.SKU = strings.TrimSpace(sku)
		}
		if q, ok := it.Quantity.Value(); it.Quantity.Set && (!ok || q < 1 || q > maxQuantity) {
			v.Add(f+"quantity", "The quantity must be a whole number from 1 to "+itoa(maxQuantity)+".")
		} else if ok {
			l.Quantity = q
		}
		if it.Price.Set {
			v.Add(f+"price", "A return takes the price of the reward's line; leave price out.")
		}
		if it.Discount.Set {
			v.Add(f+"discount", "A return takes the discount of the reward's line; leave discount out.")
		}
		e.Basket.Lines = append(e.Basket.Lines, l)
	}
	e.Basket.ReturnsAll = !in.Items.Set
}

// returnItems applies a return by item of the reward e.ReturnsID.
func returnItems(ctx context.Context, tx Tx, r *entryRequest) error {
	e := &r.entry
	b := r.b
	if err := tx.LockEntry(ctx, b.ID, e.ReturnsID); err != nil {
		return notReturnable(err)
	}
	orig, err := tx.Transaction(ctx, b.ID, e.ReturnsID)
	if err != nil {
		return notReturnable(err)
	}
	switch {
	case orig.Intent != IntentReward || orig.Amount <= 0:
		return Invalid("reverses_id", "Only a reward for a spend can be returned; entry "+itoa64(orig.ID)+" is a "+orig.Intent+".")
	case e.CustomerID != "" && e.CustomerID != orig.CustomerID:
		return Invalid("customer.id", "The reward returned is another customer's.")
	}
	e.CustomerID = orig.CustomerID
	if e.BranchID == "" {
		e.BranchID = orig.BranchID
	}
	if cancelled, err := tx.ReversedBy(ctx, b.ID, orig.ID); err != nil {
		return err
	} else if cancelled != 0 {
		return Invalid("reverses_id", "The reward was cancelled (entry "+itoa64(cancelled)+"): nothing is left to return.")
	}
	sold, err := tx.Baskets(ctx, b.ID, []int64{orig.ID})
	if err != nil {
		return err
	}
	before, err := tx.ReturnBaskets(ctx, b.ID, orig.ID)
	if err != nil {
		return err
	}
	plan, err := planReturn(orig, sold[orig.ID], before, e.Basket)
	if err != nil {
		return err
	}
	e.Basket = plan.basket
	c, err := tx.CustomerAny(ctx, b.ID, e.CustomerID)
	if err == nil && c.Deleted {
		err = customerNotFound()
	}
	if err != nil {
		return err
	}
	// A return in the purchase's return window takes back pending points.
	points := min(plan.points, c.Balance.Points+c.Balance.Pending)
	e.Amount, e.TierAmount = plan.amount, -plan.amount
	e.Points, e.TierPoints, e.TakePending = -points, -points, true
	if err := appendEntry(ctx, tx, e); err != nil {
		return err
	}
	var restore map[int64]int64
	if plan.all {
		if restore, err = takeBackCoupons(ctx, tx, b.ID, orig); err != nil {
			return err
		}
	}
	return unstamp(ctx, tx, b.ID, orig, before, plan, e, restore)
}

// takeBackCoupons takes back the coupons the reward orig issued (its
// coupon rules', the punch cards it filled) that are still unused, when
// nothing of it is left: with its last return by item, or its
// cancellation. A coupon used, expired or claimed meanwhile stays. It
// returns, by card, the coupons taken back that filling the card issued:
// the card gets back the stamps each took.
func takeBackCoupons(ctx context.Context, tx Tx, businessID string, orig Transaction) (map[int64]int64, error) {
	coupons, err := tx.EntryCoupons(ctx, businessID, orig.ID)
	if err != nil || len(coupons) == 0 {
		return nil, err
	}
	now := tx.Now()
	restore := map[int64]int64{}
	for _, c := range coupons {
		if !c.Available(now) {
			continue
		}
		c.TakenBackAt, c.UpdatedAt = now, now
		ok, err := tx.TakeBackCoupon(ctx, &c)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // claimed meanwhile: it stays
		}
		if c.PunchCardID != 0 {
			restore[c.PunchCardID]++
		}
		if err := record(ctx, tx, businessID, EventCouponTakenBack, newCouponEventJSON(c)); err != nil {
			return nil, err
		}
	}
	return restore, nil
}

// unstamp takes back from the customer's punch cards the stamps the
// returned units gave: on a card of products or categories, one per
// qualifying unit returned, on a visit card (and for a stamp rule's
// stamps) with the return that leaves nothing unreturned; never more than
// the reward gave less what its returns took back before, and never below
// zero on the card. A card whose coupon was taken back (restore: the
// coupons by card) first gets back the stamps that filled it; a card whose
// coupon was used keeps it.
func unstamp(ctx context.Context, tx Tx, businessID string, orig Transaction, before map[int64]*Basket, plan returnPlan, e *Transaction, restore map[int64]int64) error {
	ids := []int64{orig.ID}
	for id := range before {
		ids = append(ids, id)
	}
	given, err := tx.EntryStamps(ctx, ids)
	if err != nil || len(given[orig.ID]) == 0 {
		return err
	}
	cards, err := tx.PunchCards(ctx, businessID)
	if err != nil {
		return err
	}
	all := plan.all
	for _, c := range cards {
		left := given[orig.ID][c.ID]
		for id := range before {
			left += given[id][c.ID] // the returns' are negative
		}
		if left <= 0 && restore[c.ID] == 0 {
			continue
		}
		left = max(left, 0)
		var n int64
		q := c.Qualifies
		switch {
		case all:
			n = left // the last return takes back what is left
		case len(q.Products) > 0 || len(q.Categories) > 0:
			for _, l := range plan.basket.Lines {
				if l.ProductID != 0 && slices.Contains(q.Products, l.ProductID) || l.CategoryID != 0 && slices.Contains(q.Categories, l.CategoryID) {
					n += l.Quantity
				}
			}
		}
		if n = min(n, left); n <= 0 && restore[c.ID] == 0 {
			continue
		}
		total, err := tx.AddStamps(ctx, c.ID, e.CustomerID, e.ID, -n, tx.Now())
		if err != nil {
			return err
		}
		if k := restore[c.ID]; total < 0 || k > 0 {
			if err := tx.SetStamps(ctx, c.ID, e.CustomerID, max(total+k*c.StampsRequired, 0), -k); err != nil {
				return err
			}
		}
	}
	return nil
}

// notReturnable names a reward that cannot be found as reverses_id.
func notReturnable(err error) error {
	if ErrorCode(err) == ENotFound {
		return Invalid("reverses_id", "No entry of the business has this id.")
	}
	return err
}

// returnPlan is what a return by item takes back: the points, the amount
// and its basket (each line the units of a reward's line, with the points
// they took back).
type returnPlan struct {
	points int64
	amount Money
	basket *Basket
	all    bool // nothing of the reward is left unreturned after it
}

// planReturn decides a return of want (the lines asked, or every unit
// left when want.ReturnsAll) from the reward orig, its basket sold (nil
// when it had none) and the baskets of the returns before.
func planReturn(orig Transaction, sold *Basket, before map[int64]*Basket, want *Basket) (returnPlan, error) {
	out := returnPlan{basket: &Basket{Lines: []BasketLine{}, ReturnsID: orig.ID}}
	if sold == nil || len(sold.Lines) == 0 {
		// A reward without items is returned whole, once.
		if len(before) > 0 {
			return out, Invalid("reverses_id", "The reward was returned already.")
		}
		if !want.ReturnsAll {
			return out, Invalid("items", "The reward returned has no items: leave items out to return it whole.")
		}
		out.points, out.amount, out.all = orig.Points, orig.Amount, true
		return out, nil
	}
	// Units and points returned before, by line number.
	returned := map[int]int64{}
	var takenBefore int64
	for _, rb := range before {
		for _, l := range rb.Lines {
			returned[l.Line] += l.Quantity
			takenBefore += l.Points
		}
	}
	shares := lineShares(orig, sold)
	left := map[int]int64{}
	for i, l := range sold.Lines {
		left[lineNumber(l, i)] = l.Quantity - returned[lineNumber(l, i)]
	}
	take := map[int]int64{}
	if want.ReturnsAll {
		for i, l := range sold.Lines {
			if n := left[lineNumber(l, i)]; n > 0 {
				take[lineNumber(l, i)] = n
			}
		}
		if len(take) == 0 {
			return out, Invalid("reverses_id", "Every unit of the reward was returned already.")
		}
	} else {
		v := Validation{}
		for i, w := range want.Lines {
			need, found := w.Quantity, false
			for j, l := range sold.Lines {
				n := lineNumber(l, j)
				if l.SKU != w.SKU {
					continue
				}
				found = true
				k := min(need, left[n]-take[n])
				take[n] += k
				need -= k
			}
			switch {
			case !found:
				v.Add("items."+itoa(i)+".sku", "The reward returned has no line of "+w.SKU+".")
			case need > 0:
				v.Add("items."+itoa(i)+".quantity", "Only "+itoa64(w.Quantity-need)+" units of "+w.SKU+" are left to return.")
			}
		}
		if err := v.Err(); err != nil {
			return out, err
		}
	}
	all := true
	for i, l := range sold.Lines {
		n := lineNumber(l, i)
		k := take[n]
		if returned[n]+k < l.Quantity {
			all = false
		}
		if k == 0 {
			continue
		}
		r := returned[n]
		points := part(shares[i], r+k, l.Quantity) - part(shares[i], r, l.Quantity)
		amount := Money(part(int64(l.Total()), r+k, l.Quantity) - part(int64(l.Total()), r, l.Quantity))
		out.basket.Lines = append(out.basket.Lines, BasketLine{Line: n, SKU: l.SKU, ProductID: l.ProductID, CategoryID: l.CategoryID,
			Quantity: k, Price: l.Price, Discount: Money(k)*l.Price - amount, Points: points})
		out.points += points
		out.amount += amount
	}
	if all {
		// The last return takes back what no line earned too.
		out.points, out.all = orig.Points-takenBefore, true
	}
	return out, nil
}

// lineNumber is a basket line's number, its place from 1 when not kept.
func lineNumber(l BasketLine, i int) int {
	if l.Line != 0 {
		return l.Line
	}
	return i + 1
}

// part is whole × k / q rounded down: the share of k of q units.
func part(whole, k, q int64) int64 {
	if q <= 0 {
		return 0
	}
	return whole * k / q
}

// lineShares are the points each line of a reward's basket earned: as
// kept with it, or, for a reward kept before lines kept their points, its
// points shared by the lines' totals.
func lineShares(orig Transaction, sold *Basket) []int64 {
	out := make([]int64, len(sold.Lines))
	var sum int64
	for i, l := range sold.Lines {
		out[i] = l.Points
		sum += l.Points
	}
	if sum > 0 || orig.Points <= 0 {
		return out
	}
	lines := make([]saleLine, len(sold.Lines))
	for i, l := range sold.Lines {
		lines[i] = saleLine{total: l.Total(), units: l.Quantity, basket: i}
	}
	distribute(orig.Points, lines, nil, out, make([]int64, len(lines)))
	return out
}
