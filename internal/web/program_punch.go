package web

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// Punch cards: qualifying purchases stamp a customer's card, and a full
// card issues a coupon of its reward offer.

var punchCardKind = &setupKind{Path: "punch-cards", Title: "Punch cards", One: "punch card", Toggle: true,
	Lead: "Buy nine coffees, the tenth is free: qualifying purchases stamp the customer's card, and a full card issues a coupon of a coupon offer.",
	Fields: []setupField{
		{Name: "name", Label: "Name", Kind: kindText},
		{Name: "stamps_required", Label: "Stamps to fill the card", Kind: kindInt, Unit: "stamps", Hint: "1 to 1,000."},
		{Name: "reward_offer_id", Label: "A full card gives", Kind: kindRef, Source: "coupon_offers", Ints: true,
			Hint: "A coupon offer of your program, issued free when the card is full."},
		{Name: "qualifies.products", Label: "Products that stamp it", Kind: kindPick, Source: "products", Ints: true,
			Section: "What stamps the card", Lead: "With products or categories, each unit bought is a stamp. With neither, each purchase is one stamp (a visit card)."},
		{Name: "qualifies.categories", Label: "Categories that stamp it", Kind: kindPick, Source: "categories", Ints: true},
		{Name: "qualifies.min_amount", Label: "Minimum purchase", Kind: kindMoney, Unit: unitCurrency, Hint: "A smaller purchase stamps nothing. Empty: any."},
		enabledField,
	},
	list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
		all, _, err := s.Program.Services.PunchCards.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
		var rows []setupRow
		for _, c := range all {
			facts := []string{strconv.FormatInt(c.StampsRequired, 10) + " stamps", punchWhat(c.Qualifies, b)}
			rows = append(rows, setupRow{ID: intText(c.ID), Title: c.Name, Enabled: c.Enabled, Facts: facts})
		}
		return rows, err
	},
	get: func(ctx context.Context, s *Server, b loyalty.Business, id string, _ *time.Location) (map[string]string, []string, error) {
		c, err := s.Program.Services.PunchCards.Get(ctx, b, id)
		return map[string]string{"name": c.Name, "stamps_required": intText(c.StampsRequired), "reward_offer_id": zeroless(c.RewardOfferID),
			"qualifies.products": idsText(c.Qualifies.Products), "qualifies.categories": idsText(c.Qualifies.Categories),
			"qualifies.min_amount": moneyText(c.Qualifies.MinAmount), "enabled": boolText(c.Enabled)}, nil, err
	},
	save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
		in, err := decodeAs[loyalty.PunchCardInput](ensureObjects(body, "qualifies"))
		if err != nil {
			return err
		}
		return s.Program.SavePunchCard(ctx, a, id, name, in)
	},
	remove: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string) error {
		return s.Program.DeletePunchCard(ctx, a, id, name)
	},
}

// punchWhat says in words what stamps a card.
func punchWhat(q loyalty.PunchQualifies, b loyalty.Business) string {
	what := "each purchase"
	if n := len(q.Products) + len(q.Categories); n > 0 {
		what = "each unit of " + counted(len(q.Products), "product", "products")
		if len(q.Products) > 0 && len(q.Categories) > 0 {
			what += " and "
		}
		what += counted(len(q.Categories), "category", "categories")
	}
	if q.MinAmount > 0 {
		what += " of " + format.Money(q.MinAmount, b) + " or more"
	}
	return what
}

// counted is "1 product", "3 products", or "" for none.
func counted(n int, one, many string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ensureObjects adds each of names, as an empty object, to a form's body
// that has none: a form sends its object whole (on an update, what the
// form left empty is cleared, not kept).
func ensureObjects(body []byte, names ...string) []byte {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	for _, n := range names {
		if _, ok := m[n]; !ok {
			m[n] = map[string]any{}
		}
	}
	out, _ := json.Marshal(m)
	return out
}
