package console

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The program desk's products and categories: what a basket's lines name
// by SKU, and what earning rules and punch cards pick.

// remove deletes an entry through fn, audited as deleted from the program
// with target naming it.
func (d *ProgramDesk) remove(ctx context.Context, a loyalty.Actor, target string, fn func(context.Context, loyalty.Business, loyalty.Services) error) error {
	return d.change(ctx, a, loyalty.AuditProgramDeleted, target, fn)
}

// SaveProduct creates a product (id "") or updates one.
func (d *ProgramDesk) SaveProduct(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.ProductInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.ProductService { return s.Products }, id, "Product: "+name, in)
}

// DeleteProduct deletes a product; its SKU is free again.
func (d *ProgramDesk) DeleteProduct(ctx context.Context, a loyalty.Actor, id, name string) error {
	return d.remove(ctx, a, "Product: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		return svc.Products.Delete(ctx, b, id)
	})
}

// SaveCategory creates a product category (id "") or renames one.
func (d *ProgramDesk) SaveCategory(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.CategoryInput) error {
	action := loyalty.AuditProgramUpdated
	if id == "" {
		action = loyalty.AuditProgramCreated
	}
	return d.change(ctx, a, action, "Category: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		_, err := svc.Products.SaveCategory(ctx, b, id, in)
		return err
	})
}

// DeleteCategory deletes a category; its products become uncategorised.
func (d *ProgramDesk) DeleteCategory(ctx context.Context, a loyalty.Actor, id, name string) error {
	return d.remove(ctx, a, "Category: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		return svc.Products.DeleteCategory(ctx, b, id)
	})
}

// ProductPageSize is how many products a page of the console's list shows.
const ProductPageSize = 25

// ProductPage is one page of the products a search found.
type ProductPage struct {
	Products []loyalty.Product
	Page     int
	More     bool // a next page exists
	Total    int  // the products found
}

// Products returns page (from 1) of the business's products whose name or
// SKU holds text (case aside), all of them when text is empty.
func (d *ProgramDesk) Products(ctx context.Context, a loyalty.Actor, text string, page int) (ProductPage, error) {
	b, err := d.Business(ctx, a)
	if err != nil {
		return ProductPage{}, err
	}
	page = max(page, 1)
	found, total, err := d.Services.Products.Search(ctx, b, text, loyalty.ListQuery{Page: page, PerPage: ProductPageSize})
	return ProductPage{Products: found, Page: page, More: page*ProductPageSize < total, Total: total}, err
}

// productScan bounds the products a picker reads.
const productScan = 10_000

// AllProducts returns the business's products (up to productScan), for
// the pickers of rules and punch cards.
func (d *ProgramDesk) AllProducts(ctx context.Context, a loyalty.Actor) ([]loyalty.Product, error) {
	b, err := d.Business(ctx, a)
	if err != nil {
		return nil, err
	}
	return d.matching(ctx, b, func(loyalty.Product) bool { return true })
}

// matching reads the business's products, oldest first, keeping those
// keep accepts.
func (d *ProgramDesk) matching(ctx context.Context, b loyalty.Business, keep func(loyalty.Product) bool) ([]loyalty.Product, error) {
	var out []loyalty.Product
	for page := 1; page*100 <= productScan; page++ {
		all, total, err := d.Services.Products.List(ctx, b, loyalty.ListQuery{Page: page, PerPage: 100})
		if err != nil {
			return out, err
		}
		for _, p := range all {
			if keep(p) {
				out = append(out, p)
			}
		}
		if page*100 >= total || len(all) == 0 {
			break
		}
	}
	return out, nil
}

// Categories returns the business's live categories (up to 1,000).
func (d *ProgramDesk) Categories(ctx context.Context, a loyalty.Actor) ([]loyalty.ProductCategory, error) {
	b, err := d.Business(ctx, a)
	if err != nil {
		return nil, err
	}
	var out []loyalty.ProductCategory
	for page := 1; page <= 10; page++ {
		all, total, err := d.Services.Products.Categories(ctx, b, loyalty.ListQuery{Page: page, PerPage: 100})
		if err != nil {
			return out, err
		}
		out = append(out, all...)
		if page*100 >= total || len(all) == 0 {
			break
		}
	}
	return out, nil
}
