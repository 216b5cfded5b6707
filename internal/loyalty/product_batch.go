package loyalty

import (
	"context"
	"strings"
)

// BatchResult is what a batch upsert did to each product, in the order
// sent.
type BatchResult struct {
	Products []Product
	Created  []bool // Created[i]: the i-th product is new
}

// Batch creates or updates up to MaxProductBatch products in one
// transaction, each found by its product_sku (required): a live product
// with that SKU is updated with the fields sent, another is created. Any
// refusal refuses the whole batch, each error named by its place
// (products.3.product_sku), and writes nothing.
func (s *ProductService) Batch(ctx context.Context, b Business, in []ProductInput) (BatchResult, error) {
	switch {
	case len(in) == 0:
		return BatchResult{}, Invalid("products", "Send at least one product.")
	case len(in) > MaxProductBatch:
		return BatchResult{}, Invalid("products", "At most "+itoa(MaxProductBatch)+" products may be sent at once.")
	}
	v := Validation{}
	seen := map[string]int{}
	for i := range in {
		f := "products." + itoa(i) + ".product_sku"
		sku, ok := in[i].SKU.Value()
		sku = strings.TrimSpace(sku)
		switch j, dup := seen[sku]; {
		case !ok || sku == "":
			v.Add(f, "The product_sku field is required in a batch: it names the product to create or update.")
		case dup:
			v.Add(f, "The SKU "+sku+" is sent twice, as product "+itoa(j)+" too.")
		default:
			seen[sku] = i
		}
	}
	if err := v.Err(); err != nil {
		return BatchResult{}, err
	}
	out := BatchResult{Products: make([]Product, len(in)), Created: make([]bool, len(in))}
	skus := make([]string, 0, len(in))
	for sku := range seen {
		skus = append(skus, sku)
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		// One read says which SKUs are live products; only those are
		// read whole, and the new ones are written together.
		live, err := tx.ProductsBySKU(ctx, b.ID, skus)
		if err != nil {
			return err
		}
		var created []*Product
		for i := range in {
			_, known := live[strings.TrimSpace(in[i].SKU.V)]
			p, create, err := planUpsertKnown(ctx, tx, v, b, "products."+itoa(i)+".", &in[i], known)
			if err != nil {
				return err
			}
			out.Products[i], out.Created[i] = p, create
		}
		if err := v.Err(); err != nil {
			return err
		}
		for i := range out.Products {
			if out.Created[i] {
				created = append(created, &out.Products[i])
			} else if err := tx.UpdateProduct(ctx, &out.Products[i]); err != nil {
				return err
			}
		}
		return tx.InsertProducts(ctx, created)
	})
	if err != nil {
		return BatchResult{}, err
	}
	return out, nil
}

// planUpsert finds the live product with in's SKU, or makes a new one,
// and merges in into it, its refusals added to v with prefix.
func planUpsert(ctx context.Context, tx Tx, v Validation, b Business, prefix string, in *ProductInput) (Product, bool, error) {
	return planUpsertKnown(ctx, tx, v, b, prefix, in, true)
}

// planUpsertKnown is planUpsert knowing, when known is false, that no
// live product has the SKU (a batch read them all at once).
func planUpsertKnown(ctx context.Context, tx Tx, v Validation, b Business, prefix string, in *ProductInput, known bool) (Product, bool, error) {
	now := tx.Now()
	var p Product
	var err error = productNotFound()
	if known {
		p, err = tx.ProductBySKU(ctx, b.ID, strings.TrimSpace(in.SKU.V))
	}
	create := ErrorCode(err) == ENotFound
	if err != nil && !create {
		return p, false, err
	}
	if create {
		// No live product has the SKU: applyProduct need not look again.
		p = Product{BusinessID: b.ID, SKU: strings.TrimSpace(in.SKU.V), Images: []Image{}, Tags: []string{}, CreatedAt: now}
	}
	p.UpdatedAt = now
	return p, create, applyProduct(ctx, tx, v, b, prefix, in, &p, create)
}

// writeProduct stores a planned product, new or not.
func writeProduct(ctx context.Context, tx Tx, p *Product, create bool) error {
	if create {
		return tx.InsertProduct(ctx, p)
	}
	return tx.UpdateProduct(ctx, p)
}

// upsertProduct creates or updates the product with in's SKU (an import
// row's change).
func upsertProduct(ctx context.Context, tx Tx, b Business, in *ProductInput) (Product, bool, error) {
	v := Validation{}
	p, create, err := planUpsert(ctx, tx, v, b, "", in)
	if err == nil {
		err = v.Err()
	}
	if err == nil {
		err = writeProduct(ctx, tx, &p, create)
	}
	return p, create, err
}
