package sqlstore

import "github.com/loyalty/loyalty/internal/loyalty"

// basketArrays are a batch's baskets as batchSQL takes them: one array
// per column, each basket and line tied to its entry's ord.
type basketArrays struct {
	ord           []int32
	tax, shipping []int64
	channel       []string
	line          struct {
		ord, n                                               []int32
		sku                                                  []string
		product, category, quantity, price, discount, points []int64
	}
}

// reserve sizes the arrays for the batch's baskets, so that add never
// grows them.
func (a *basketArrays) reserve(batch []*pendingAppend) {
	baskets, lines := 0, 0
	for _, p := range batch {
		if b := p.e.Basket; b != nil {
			baskets, lines = baskets+1, lines+len(b.Lines)
		}
	}
	if baskets == 0 {
		return
	}
	a.ord, a.tax, a.shipping, a.channel = make([]int32, 0, baskets), make([]int64, 0, baskets), make([]int64, 0, baskets),
		make([]string, 0, baskets)
	l := &a.line
	l.ord, l.n, l.sku = make([]int32, 0, lines), make([]int32, 0, lines), make([]string, 0, lines)
	l.product, l.category, l.quantity = make([]int64, 0, lines), make([]int64, 0, lines), make([]int64, 0, lines)
	l.price, l.discount, l.points = make([]int64, 0, lines), make([]int64, 0, lines), make([]int64, 0, lines)
}

// add takes the basket of the batch's entry ord, if it has one.
func (a *basketArrays) add(ord int32, e *loyalty.Transaction) {
	b := e.Basket
	if b == nil {
		return
	}
	a.ord, a.tax, a.shipping, a.channel = append(a.ord, ord), append(a.tax, int64(b.Tax)), append(a.shipping, int64(b.Shipping)),
		append(a.channel, b.Channel)
	l := &a.line
	for i, bl := range b.Lines {
		n := bl.Line
		if n == 0 {
			n = i + 1
		}
		l.ord, l.n, l.sku = append(l.ord, ord), append(l.n, int32(n)), append(l.sku, bl.SKU)
		l.product, l.category, l.quantity = append(l.product, bl.ProductID), append(l.category, bl.CategoryID), append(l.quantity, bl.Quantity)
		l.price, l.discount, l.points = append(l.price, int64(bl.Price)), append(l.discount, int64(bl.Discount)), append(l.points, bl.Points)
	}
}
