package loyalty

import (
	"slices"
	"time"
)

// sale is what the engine decides over: when and where it happened, on
// which channel, and its lines (one line of the whole amount when the
// reward names no items).
type sale struct {
	at      time.Time
	loc     *time.Location
	branch  string // the branch, the main one when the reward names none ("" when no rule asks)
	channel string
	amount  Money // the eligible amount: the lines' total
	items   bool  // the lines are a basket's
	lines   []saleLine
	one     [1]saleLine
	// day and hm are the local day of the week and time of at, read
	// once for the rules with a schedule (inSchedule).
	day   int
	hm    string
	bools []bool // what flags hands out
}

// inSchedule reports whether the sale is in a rule's weekly window.
func (s *sale) inSchedule(w RuleSchedule) bool {
	if w.always() {
		return true
	}
	if s.day == 0 {
		t := s.at.In(s.loc)
		s.day, s.hm = isoWeekday(t), t.Format("15:04")
	}
	return w.open(s.day, s.hm)
}

// flags returns a flag for each of the sale's lines, all false: the
// lines a rule qualifies, taken from one allocation for all its rules.
func (s *sale) flags() []bool {
	n := len(s.lines)
	if len(s.bools) < n {
		s.bools = make([]bool, n*16)
	}
	f := s.bools[:n:n]
	s.bools = s.bools[n:]
	return f
}

// saleLine is one line of a sale.
type saleLine struct {
	total             Money
	units             int64
	product, category int64
	basket            int // the basket line it is (-1: tax or shipping, or a sale without items)
}

// newSale returns the sale of a reward e at its time and branch, less
// what the program excludes: a basket's lines of gift cards and of the
// excluded categories are left out, a line earns on its price less its
// discount (or on its full price when discounts are not excluded), and
// tax and shipping, when not excluded, are lines of their own that no
// product rule matches. Its amount is the eligible amount.
func newSale(e *Transaction, loc *time.Location, branch string, x EarningExclusions) *sale {
	s := &sale{at: e.CreatedAt, loc: loc, branch: branch, amount: e.Amount}
	b := e.Basket
	if b != nil {
		s.channel = b.Channel
	}
	if b == nil || len(b.Lines) == 0 {
		s.one[0] = saleLine{total: e.Amount, basket: -1}
		s.lines = s.one[:]
		return s
	}
	s.items, s.amount = true, 0
	s.lines = make([]saleLine, 0, len(b.Lines)+2)
	for i, l := range b.Lines {
		if x.GiftCards && l.GiftCard || l.CategoryID != 0 && slices.Contains(x.Categories, l.CategoryID) {
			continue
		}
		total := l.Total()
		if !x.Discounts {
			total = Money(l.Quantity) * l.Price
		}
		s.lines = append(s.lines, saleLine{total: total, units: l.Quantity, product: l.ProductID, category: l.CategoryID, basket: i})
		s.amount += total
	}
	for _, extra := range []struct {
		excluded bool
		amount   Money
	}{{x.Tax, b.Tax}, {x.Shipping, b.Shipping}} {
		if !extra.excluded && extra.amount > 0 {
			s.lines = append(s.lines, saleLine{total: extra.amount, basket: -1})
			s.amount += extra.amount
		}
	}
	return s
}
