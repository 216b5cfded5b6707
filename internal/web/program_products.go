package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The program's products and their categories: what a basket's lines
// name by SKU, and what earning rules and punch cards pick.

var productKind = &setupKind{Path: "products", Title: "Products", One: "product",
	Lead:   "What you sell, by SKU: the counter prices a scanned SKU by it, and earning rules and punch cards pick products and categories.",
	Search: "Find a product by name or SKU",
	Fields: []setupField{
		{Name: "title", Label: "Name", Kind: kindText},
		{Name: "product_sku", Label: "SKU", Kind: kindText, Hint: "The code your till or barcode sends, 3 to 100 characters.", Clear: true},
		{Name: "product_actual_price", Label: "Price", Kind: kindMoney, Unit: unitCurrency, Row: "p", Hint: "What it sells at."},
		{Name: "product_real_price", Label: "List price", Kind: kindMoney, Unit: unitCurrency, Row: "p", Hint: "Before any reduction."},
		{Name: "category_id", Label: "Category", Kind: kindRef, Source: "categories", Ints: true, Clear: true},
		{Name: "tags", Label: "Tags", Kind: kindTags, Hint: "Separated by commas, such as: hot, vegan."},
		{Name: "branches", Label: "Sold at", Kind: kindBranches, Hint: "None chosen: every branch.", Clear: true},
	},
	page: func(ctx context.Context, s *Server, a loyalty.Actor, b loyalty.Business, q string, page int) ([]setupRow, bool, error) {
		found, err := s.Program.Products(ctx, a, q, page)
		if err != nil {
			return nil, false, err
		}
		cats, err := categoryNames(ctx, s, a)
		var rows []setupRow
		for _, p := range found.Products {
			facts := []string{cmp(p.SKU, "No SKU"), format.Money(p.ActualPrice, b)}
			if c := cats[p.CategoryID]; c != "" {
				facts = append(facts, c)
			}
			rows = append(rows, setupRow{ID: intText(p.ID), Title: p.Title, Facts: facts, Enabled: true})
		}
		return rows, found.More, err
	},
	get: func(ctx context.Context, s *Server, b loyalty.Business, id string, _ *time.Location) (map[string]string, []string, error) {
		p, err := s.Program.Services.Products.Get(ctx, b, id)
		cat := ""
		if p.CategoryID != 0 {
			cat = intText(p.CategoryID)
		}
		return map[string]string{"title": p.Title, "product_sku": p.SKU, "product_actual_price": moneyText(p.ActualPrice),
			"product_real_price": moneyText(p.RealPrice), "category_id": cat, "tags": strings.Join(p.Tags, ", ")}, p.BranchIDs, err
	},
	save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
		in, err := decodeAs[loyalty.ProductInput](body)
		if err != nil {
			return err
		}
		if id != "" && !in.Tags.Set {
			// Tags emptied on the form clear the saved ones.
			in.Tags = loyalty.Some([]string{})
		}
		return s.Program.SaveProduct(ctx, a, id, name, in)
	},
	remove: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string) error {
		return s.Program.DeleteProduct(ctx, a, id, name)
	},
}

var categoryKind = &setupKind{Path: "categories", Title: "Product categories", One: "category",
	Lead:   "Groups of products, such as drinks or pastries, for earning rules and punch cards.",
	Fields: []setupField{{Name: "name", Label: "Name", Kind: kindText}},
	list: func(ctx context.Context, s *Server, b loyalty.Business) ([]setupRow, error) {
		all, _, err := s.Program.Services.Products.Categories(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
		var rows []setupRow
		for _, c := range all {
			rows = append(rows, setupRow{ID: intText(c.ID), Title: c.Name, Enabled: true})
		}
		return rows, err
	},
	get: func(ctx context.Context, s *Server, b loyalty.Business, id string, _ *time.Location) (map[string]string, []string, error) {
		c, err := s.Program.Services.Products.Category(ctx, b, id)
		return map[string]string{"name": c.Name}, nil, err
	},
	save: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string, body []byte) error {
		in, err := decodeAs[loyalty.CategoryInput](body)
		if err != nil {
			return err
		}
		return s.Program.SaveCategory(ctx, a, id, name, in)
	},
	remove: func(ctx context.Context, s *Server, a loyalty.Actor, id, name string) error {
		return s.Program.DeleteCategory(ctx, a, id, name)
	},
}

// categoryNames are the business's categories' names by id.
func categoryNames(ctx context.Context, s *Server, a loyalty.Actor) (map[int64]string, error) {
	all, err := s.Program.Categories(ctx, a)
	out := map[int64]string{}
	for _, c := range all {
		out[c.ID] = c.Name
	}
	return out, err
}

// channelOptions are the channels a sale is made on.
var channelOptions = []option{{"in_store", "In store"}, {"online", "Online"}, {"app", "App"}}

// dayOptions are the days of a rule's schedule, Monday first.
var dayOptions = []option{{"mon", "Mon"}, {"tue", "Tue"}, {"wed", "Wed"}, {"thu", "Thu"}, {"fri", "Fri"}, {"sat", "Sat"}, {"sun", "Sun"}}

// sourceOptions reads what the picks and refs of fields offer, by source.
func (s *Server) sourceOptions(r *http.Request, a loyalty.Actor, b loyalty.Business, fields []setupField) (map[string][]option, error) {
	out := map[string][]option{}
	ctx := r.Context()
	for _, fd := range fields {
		src := fd.Source
		if fd.Kind == kindBranches {
			src = "branches"
		}
		if _, done := out[src]; done || src == "" {
			continue
		}
		var opts []option
		var err error
		switch src {
		case "branches":
			opts, err = s.branchOptions(r, b)
		case "channels":
			opts = channelOptions
		case "days":
			opts = dayOptions
		case "weekdays":
			opts = weekdayOptions
		case "categories":
			var all []loyalty.ProductCategory
			all, err = s.Program.Categories(ctx, a)
			for _, c := range all {
				opts = append(opts, option{intText(c.ID), c.Name})
			}
		case "products":
			var all []loyalty.Product
			all, err = s.Program.AllProducts(ctx, a)
			for _, p := range all {
				opts = append(opts, productOption(p))
			}
		case "tier_levels":
			var all []loyalty.Tier
			all, err = s.Program.Services.Tiers.List(ctx, b)
			for _, t := range all {
				for _, l := range t.Levels {
					label := l.Name
					if !t.Enabled {
						label += " (tiers disabled)"
					}
					opts = append(opts, option{intText(l.ID), label})
				}
			}
		case "punch_cards":
			var all []loyalty.PunchCard
			all, _, err = s.Program.Services.PunchCards.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
			for _, c := range all {
				label := c.Name
				if !c.Enabled {
					label += " (disabled)"
				}
				opts = append(opts, option{intText(c.ID), label})
			}
		case "coupon_offers":
			var all []loyalty.Offer
			all, _, err = s.Program.Services.Offers.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
			for _, o := range all {
				if o.TypeID != loyalty.OfferPointsMultiplier && o.TypeID != loyalty.OfferBonusPoints {
					label := o.Title
					if !o.Enabled {
						label += " (disabled)"
					}
					opts = append(opts, option{intText(o.ID), label})
				}
			}
		}
		if err != nil {
			return nil, err
		}
		out[src] = opts
	}
	return out, nil
}

// idsText writes ids as a pick's form value.
func idsText(ids []int64) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(out, "\n")
}
