package loyalty

import (
	"context"
	"slices"
	"strings"
)

// A reward may carry the basket it paid for: its lines (items: SKU,
// quantity, unit price, discount on the line), its tax and shipping, and
// the channel it was sold on. The reward's amount is the lines' total
// when it sends no amount; when it sends both, they must agree. A SKU the
// business does not know is kept as an uncategorised line and named in
// the reply (unknown_skus): a till sends SKUs the back office never
// entered, and none is dropped. The basket is written with the entry, in
// its transaction (so such a reward is never batched), and read back
// with relationships=items.

// Channels a basket may be sold on.
var Channels = []string{"in_store", "online", "app"}

// Limits of a basket.
const (
	maxBasketLines = 500
	maxQuantity    = 100_000
)

// BasketItemInput is one line of a reward's items.
type BasketItemInput struct {
	SKU      Opt[string] `json:"sku"`
	Quantity Opt[int64]  `json:"quantity"`
	Price    Opt[Money]  `json:"price"`
	Discount Opt[Money]  `json:"discount"`
}

// Basket is what a reward's basket held.
type Basket struct {
	Lines       []BasketLine
	Tax         Money
	Shipping    Money
	Channel     string
	UnknownSKUs []string // the lines' SKUs no live product had, in order
	// ReturnsID is, on a return by item's basket, the reward whose units
	// it returns.
	ReturnsID int64
	// ReturnsAll: a return by item sent no items, and returns every unit
	// left (input only).
	ReturnsAll bool
}

// BasketLine is one line of a basket: Quantity units of SKU at Price each,
// less Discount on the whole line. ProductID and CategoryID are the
// product the SKU named when the reward was made (0: none).
type BasketLine struct {
	SKU        string
	ProductID  int64
	CategoryID int64
	Quantity   int64
	Price      Money
	Discount   Money
	GiftCard   bool // the product is a gift card (GiftCardTag), known when resolved
	// Points are what the line earned of the reward's points (Earning.
	// LinePoints), kept for returns by item; on a return's basket, what
	// its units took back.
	Points int64
	// Line is the number of the line in its basket, from 1; a return's
	// line names the line of the reward it returns units of.
	Line int
}

// Total is what the line cost.
func (l BasketLine) Total() Money { return Money(l.Quantity)*l.Price - l.Discount }

// Total is what the lines cost, tax and shipping aside.
func (b *Basket) Total() Money {
	var t Money
	for _, l := range b.Lines {
		t += l.Total()
	}
	return t
}

// ProductRef is what a basket's line takes of the live product its SKU
// names: the product, its category and its tags (a gift card is one
// tagged GiftCardTag).
type ProductRef struct {
	ID         int64
	CategoryID int64 // 0: uncategorised
	Tags       []string
}

// basket reads a reward's basket fields, with no I/O: nil when it sent
// none. Each refusal names its field (items.3.price).
func (in *TransactionInput) basket(v Validation) *Basket {
	if !in.Items.Set && !in.Tax.Set && !in.Shipping.Set && !in.Channel.Set {
		return nil
	}
	items, _ := in.Items.Value()
	if in.Items.Set && (in.Items.Null || len(items) == 0) {
		v.Add("items", "The items must hold at least one line: {sku, quantity, price}.")
	}
	if len(items) > maxBasketLines {
		v.Add("items", "A basket may hold at most "+itoa(maxBasketLines)+" lines.")
		items = nil
	}
	b := &Basket{Lines: make([]BasketLine, 0, len(items))}
	for i, it := range items {
		// A line's field names are written only for its errors.
		field := func(name string) string { return "items." + itoa(i) + "." + name }
		l, bad := BasketLine{}, false
		sku, ok := it.SKU.Value()
		switch sku = strings.TrimSpace(sku); {
		case !ok || sku == "":
			v.Add(field("sku"), "The sku field is required.")
		case len(sku) > maxSKU:
			v.Add(field("sku"), "The sku may not be greater than "+itoa(maxSKU)+" characters.")
		default:
			l.SKU = sku
		}
		if q, ok := it.Quantity.Value(); !it.Quantity.Set {
			l.Quantity = 1
		} else if !ok || q < 1 || q > maxQuantity {
			v.Add(field("quantity"), "The quantity must be a whole number from 1 to "+itoa(maxQuantity)+".")
			bad = true
		} else {
			l.Quantity = q
		}
		if p, ok := it.Price.Value(); !ok || p < 0 || p > MaxMoney {
			v.Add(field("price"), "The price field is required: the unit price, 0 or more.")
			bad = true
		} else {
			l.Price = p
		}
		if d, ok := it.Discount.Value(); it.Discount.Set && (!ok || d < 0) {
			v.Add(field("discount"), "The discount must be an amount of 0 or more, off the whole line.")
			bad = true
		} else {
			l.Discount = d
		}
		if !bad && l.Total() < 0 {
			v.Add(field("discount"), "The discount may not be more than the line's price times its quantity.")
		}
		b.Lines = append(b.Lines, l)
	}
	for _, o := range [...]struct {
		field string
		opt   Opt[Money]
	}{{"tax", in.Tax}, {"shipping", in.Shipping}} {
		if m, ok := o.opt.Value(); (ok && (m < 0 || m > MaxMoney)) || o.opt.Null {
			v.Add(o.field, "The "+o.field+" must be an amount of 0 or more.")
		}
	}
	b.Tax, b.Shipping = in.Tax.V, in.Shipping.V
	if c, ok := in.Channel.Value(); ok && slices.Contains(Channels, c) {
		b.Channel = c
	} else if in.Channel.Set {
		v.Add("channel", "The channel must be one of "+strings.Join(Channels, ", ")+".")
	}
	return b
}

// checkBasket takes a reward's basket into its input: the lines' total is
// the amount when none was sent, and must equal the amount sent.
func (in *TransactionInput) checkBasket(v Validation, b *Basket) {
	if b == nil || len(b.Lines) == 0 || v.Has("items") {
		return
	}
	for f := range v {
		if strings.HasPrefix(f, "items.") {
			return
		}
	}
	total := b.Total()
	if a, ok := in.Amount.Value(); ok {
		if a != total {
			v.Add("amount", "The amount, "+a.String()+", is not the items' total, "+total.String()+": send one, or both agreeing.")
		}
		return
	}
	if total <= 0 {
		v.Add("items", "The items' total must be greater than 0.")
		return
	}
	in.Amount = Some(total)
}

// RewardReader reads what a reward is decided from: its offers and what
// its basket's SKUs name.
type RewardReader interface {
	OfferFinder
	BasketReader
}

// BasketReader reads what a basket's SKUs name.
type BasketReader interface {
	// ProductsBySKU returns what a basket takes of the live products of
	// a business with those SKUs, by SKU.
	ProductsBySKU(ctx context.Context, businessID string, skus []string) (map[string]ProductRef, error)
}

// resolveBasket ties each line to the product its SKU names now, and
// lists the SKUs no product has.
func resolveBasket(ctx context.Context, r BasketReader, businessID string, b *Basket) error {
	skus := make([]string, 0, len(b.Lines))
	for _, l := range b.Lines {
		if !slices.Contains(skus, l.SKU) {
			skus = append(skus, l.SKU)
		}
	}
	if len(skus) == 0 {
		return nil
	}
	found, err := r.ProductsBySKU(ctx, businessID, skus)
	if err != nil {
		return err
	}
	b.UnknownSKUs = []string{}
	for i, l := range b.Lines {
		if p, ok := found[l.SKU]; ok {
			b.Lines[i].ProductID, b.Lines[i].CategoryID = p.ID, p.CategoryID
			b.Lines[i].GiftCard = slices.ContainsFunc(p.Tags, func(t string) bool { return strings.EqualFold(t, GiftCardTag) })
		} else if !slices.Contains(b.UnknownSKUs, l.SKU) {
			b.UnknownSKUs = append(b.UnknownSKUs, l.SKU)
		}
	}
	return nil
}
