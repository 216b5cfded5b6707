package console

import (
	"context"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The program desk's earning rules and punch cards, and the live preview
// of a rule while it is edited.

// SaveEarningRule creates an earning rule (id "") or updates one.
func (d *ProgramDesk) SaveEarningRule(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.EarningRuleInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.EarningRuleService { return s.EarningRules }, id, "Earning rule: "+name, in)
}

// DeleteEarningRule ends an earning rule.
func (d *ProgramDesk) DeleteEarningRule(ctx context.Context, a loyalty.Actor, id, name string) error {
	return d.remove(ctx, a, "Earning rule: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		return svc.EarningRules.Delete(ctx, b, id)
	})
}

// SavePunchCard creates a punch card (id "") or changes one.
func (d *ProgramDesk) SavePunchCard(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.PunchCardInput) error {
	action := loyalty.AuditProgramUpdated
	if id == "" {
		action = loyalty.AuditProgramCreated
	}
	return d.change(ctx, a, action, "Punch card: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		_, err := svc.PunchCards.Save(ctx, b, id, in)
		return err
	})
}

// DeletePunchCard ends a punch card; the coupons it issued stay.
func (d *ProgramDesk) DeletePunchCard(ctx context.Context, a loyalty.Actor, id, name string) error {
	return d.remove(ctx, a, "Punch card: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		return svc.PunchCards.Delete(ctx, b, id)
	})
}

// PreviewRule evaluates a sample basket with the rule id (a new one when
// id is "") as in would make it, writing nothing: a refused rule is an
// EInvalid naming its fields, as saving it would be.
func (d *ProgramDesk) PreviewRule(ctx context.Context, a loyalty.Actor, id string, in loyalty.EarningRuleInput, lines []SaleLine,
	basket loyalty.EvaluateInput) (loyalty.Evaluation, error) {
	b, err := d.Business(ctx, a)
	if err != nil {
		return loyalty.Evaluation{}, err
	}
	svc := d.Services.ClockedBy(b.ClockOffset)
	if len(lines) > 0 {
		items, err := basketItems(ctx, svc.Products, b, lines)
		if err != nil {
			return loyalty.Evaluation{}, err
		}
		basket.Items = loyalty.Some(items)
	}
	return svc.Transactions.PreviewRule(ctx, b, id, in, basket)
}

// SaleLine is a line of a basket as a form sends it: a SKU typed or
// scanned, its quantity (empty: 1) and unit price (empty: the product's).
type SaleLine struct {
	SKU, Quantity, Price string
}

// basketItems reads a form's lines as a basket's items: a line without a
// price takes its product's; a refusal names the line's field
// (items.2.price).
func basketItems(ctx context.Context, products *loyalty.ProductService, b loyalty.Business, lines []SaleLine) ([]loyalty.BasketItemInput, error) {
	v := loyalty.Validation{}
	var skus []any
	for _, l := range lines {
		if sku := strings.TrimSpace(l.SKU); sku != "" && strings.TrimSpace(l.Price) == "" && len(skus) < loyalty.MaxFilterValues {
			skus = append(skus, sku)
		}
	}
	prices := map[string]loyalty.Money{}
	if len(skus) > 0 {
		found, _, err := products.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100,
			Filters: []loyalty.Filter{{Field: "product_sku", Op: loyalty.OpIn, Values: skus}}})
		if err != nil {
			return nil, err
		}
		for _, p := range found {
			prices[p.SKU] = p.ActualPrice
		}
	}
	out := make([]loyalty.BasketItemInput, 0, len(lines))
	for i, l := range lines {
		f := "items." + strconv.Itoa(i) + "."
		sku := strings.TrimSpace(l.SKU)
		it := loyalty.BasketItemInput{SKU: loyalty.Some(sku)}
		if q := strings.TrimSpace(l.Quantity); q != "" {
			n, err := strconv.ParseInt(q, 10, 64)
			if err != nil {
				v.Add(f+"quantity", "Enter a whole number of units.")
			}
			it.Quantity = loyalty.Some(n)
		}
		if p := strings.TrimSpace(l.Price); p != "" {
			m, err := loyalty.ParseMoney(p)
			if err != nil {
				v.Add(f+"price", "Enter a price such as 3.50.")
			}
			it.Price = loyalty.Some(m)
		} else if m, ok := prices[sku]; ok {
			it.Price = loyalty.Some(m)
		} else if sku != "" {
			v.Add(f+"price", "No product has the SKU "+sku+": enter its price.")
		}
		out = append(out, it)
	}
	return out, v.Err()
}
