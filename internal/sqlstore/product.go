package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

const productColumns = `p.id, p.business_id, p.sku, p.title, p.description, p.languages, p.images, p.actual_price, p.real_price,
	p.promote, p.category_id, p.tags, p.deleted_at, p.created_at, p.updated_at`

func scanProduct(row scanner) (loyalty.Product, error) {
	var p loyalty.Product
	var languages, images, tags string
	var category sql.NullInt64
	var deleted sql.NullTime
	err := row.Scan(&p.ID, &p.BusinessID, &p.SKU, &p.Title, &p.Description, &languages, &images, &p.ActualPrice, &p.RealPrice,
		&p.Promote, &category, &tags, &deleted, &p.CreatedAt, &p.UpdatedAt)
	if err == sql.ErrNoRows {
		return p, loyalty.Errorf(loyalty.ENotFound, "Product not found.")
	} else if err != nil {
		return p, err
	}
	p.CategoryID, p.Deleted = category.Int64, deleted.Valid
	if err := decodeTexts(languages, &p.Texts); err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(tags), &p.Tags); err != nil || p.Tags == nil {
		p.Tags = []string{}
	}
	return p, decodeImages(images, &p.Images)
}

// encodeTags writes a product's tags as a JSON array.
func encodeTags(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

// Product returns one product of a business, deleted or not, with its
// branches.
func (t *tx) Product(ctx context.Context, businessID string, id int64) (loyalty.Product, error) {
	return productWhere(ctx, t.Tx, `p.business_id = $1 AND p.id = $2`, businessID, id)
}

// Product returns one product of a business, deleted or not, with its
// branches.
func (d *DB) Product(ctx context.Context, businessID string, id int64) (loyalty.Product, error) {
	return productWhere(ctx, d.db, `p.business_id = $1 AND p.id = $2`, businessID, id)
}

// ProductBySKU returns the live product of a business with the SKU.
func (t *tx) ProductBySKU(ctx context.Context, businessID, sku string) (loyalty.Product, error) {
	return productWhere(ctx, t.Tx, `p.business_id = $1 AND p.sku = $2 AND p.deleted_at IS NULL AND length(p.sku) > 0`, businessID, sku)
}

// productWhere reads the one product where says, with its branches.
func productWhere(ctx context.Context, q querier, where string, args ...any) (loyalty.Product, error) {
	p, err := scanProduct(q.QueryRowContext(ctx, `SELECT `+productColumns+` FROM products p WHERE `+where, args...))
	if err != nil {
		return p, dbError(err)
	}
	list := []loyalty.Product{p}
	err = withProductBranches(ctx, q, list)
	return list[0], err
}

// withProductBranches loads the branches of products.
func withProductBranches(ctx context.Context, q querier, products []loyalty.Product) error {
	ids := make([]int64, len(products))
	for i, p := range products {
		ids[i] = p.ID
	}
	branches, err := linkMap(ctx, q, "product_branches", "product_id", "branch_id", ids)
	if err != nil {
		return err
	}
	for i := range products {
		products[i].BranchIDs = branches[products[i].ID]
	}
	return nil
}

// productFilterColumns maps the filterable fields of GET /products to SQL.
var productFilterColumns = map[string]string{"product_sku": "p.sku", "category_id": "p.category_id",
	"created_at": "p.created_at", "updated_at": "p.updated_at"}

// SearchProducts implements loyalty.ProductReader: the name or SKU holds
// text (text lower-cased by the caller; ASCII letters match either case
// on SQLite, whose lower() knows no others).
func (d *DB) SearchProducts(ctx context.Context, businessID, text string, q loyalty.ListQuery) ([]loyalty.Product, int, error) {
	pattern := "%" + strings.TrimSuffix(likePrefix(text), "%") + "%"
	var out []loyalty.Product
	total, err := d.listPage(ctx, productColumns, `FROM products p WHERE p.business_id = $1 AND p.deleted_at IS NULL
		AND (lower(p.title) LIKE $2 ESCAPE '\' OR lower(p.sku) LIKE $2 ESCAPE '\')`, `p.id`, []any{businessID, pattern}, q,
		func(rows *sql.Rows) error {
			p, err := scanProduct(rows)
			out = append(out, p)
			return err
		})
	if err != nil {
		return nil, 0, err
	}
	return out, total, withProductBranches(ctx, d.db, out)
}

// Products pages the live products of a business, oldest first.
func (d *DB) Products(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.Product, int, error) {
	from, args, err := listWhere([]string{"p.business_id = $1", "p.deleted_at IS NULL"}, []any{businessID}, q, productFilterColumns)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.Product
	total, err := d.listPage(ctx, productColumns, `FROM products p`+from, `p.id`, args, q, func(rows *sql.Rows) error {
		p, err := scanProduct(rows)
		out = append(out, p)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, withProductBranches(ctx, d.db, out)
}

// InsertProduct stores a new product with its branches.
func (t *tx) InsertProduct(ctx context.Context, p *loyalty.Product) error {
	t.accessChanged() // ends the cached SKU lookups (skuCache)
	err := t.QueryRowContext(ctx, `INSERT INTO products (business_id, sku, title, description, languages, images, actual_price,
		real_price, promote, category_id, tags, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		RETURNING id`, p.BusinessID, p.SKU, p.Title, p.Description, encodeTexts(p.Texts), encodeImages(p.Images), p.ActualPrice,
		p.RealPrice, p.Promote, nullInt(p.CategoryID), encodeTags(p.Tags), p.CreatedAt.UTC(), p.UpdatedAt.UTC()).Scan(&p.ID)
	if err != nil || len(p.BranchIDs) == 0 {
		return dbError(err)
	}
	return setLinkRows(ctx, t.Tx, "product_branches", "product_id", "branch_id", p.ID, p.BranchIDs)
}

// InsertProducts stores new products, each with a SKU no live product
// has, 100 to a statement; their ids are matched back by SKU.
func (t *tx) InsertProducts(ctx context.Context, ps []*loyalty.Product) error {
	t.accessChanged() // ends the cached SKU lookups (skuCache)
	for start := 0; start < len(ps); start += 100 {
		chunk := ps[start:min(start+100, len(ps))]
		var rows strings.Builder
		var args []any
		bySKU := map[string]*loyalty.Product{}
		for i, p := range chunk {
			if i > 0 {
				rows.WriteString(", ")
			}
			n := len(args)
			rows.WriteString("(")
			for k := 1; k <= 13; k++ {
				if k > 1 {
					rows.WriteString(", ")
				}
				fmt.Fprintf(&rows, "$%d", n+k)
			}
			rows.WriteString(")")
			args = append(args, p.BusinessID, p.SKU, p.Title, p.Description, encodeTexts(p.Texts), encodeImages(p.Images), p.ActualPrice,
				p.RealPrice, p.Promote, nullInt(p.CategoryID), encodeTags(p.Tags), p.CreatedAt.UTC(), p.UpdatedAt.UTC())
			bySKU[p.SKU] = p
		}
		res, err := t.QueryContext(ctx, `INSERT INTO products (business_id, sku, title, description, languages, images, actual_price,
			real_price, promote, category_id, tags, created_at, updated_at) VALUES `+rows.String()+` RETURNING id, sku`, args...)
		if err != nil {
			return dbError(err)
		}
		for res.Next() {
			var id int64
			var sku string
			if err := res.Scan(&id, &sku); err != nil {
				res.Close()
				return dbError(err)
			}
			if p := bySKU[sku]; p != nil {
				p.ID = id
			}
		}
		res.Close()
		if err := res.Err(); err != nil {
			return dbError(err)
		}
		for _, p := range chunk {
			if p.ID == 0 {
				return fmt.Errorf("insert products: no id came back for SKU %q", p.SKU)
			}
			if len(p.BranchIDs) > 0 {
				if err := setLinkRows(ctx, t.Tx, "product_branches", "product_id", "branch_id", p.ID, p.BranchIDs); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// UpdateProduct writes a product's fields and branches.
func (t *tx) UpdateProduct(ctx context.Context, p *loyalty.Product) error {
	t.accessChanged() // ends the cached SKU lookups (skuCache)
	var deleted sql.NullTime
	if p.Deleted {
		deleted = nullTime(p.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE products SET sku = $1, title = $2, description = $3, languages = $4, images = $5,
		actual_price = $6, real_price = $7, promote = $8, category_id = $9, tags = $10, deleted_at = $11, updated_at = $12
		WHERE business_id = $13 AND id = $14`,
		p.SKU, p.Title, p.Description, encodeTexts(p.Texts), encodeImages(p.Images), p.ActualPrice, p.RealPrice, p.Promote,
		nullInt(p.CategoryID), encodeTags(p.Tags), deleted, p.UpdatedAt.UTC(), p.BusinessID, p.ID)
	if err != nil || p.Deleted {
		return dbError(err)
	}
	return setLinkRows(ctx, t.Tx, "product_branches", "product_id", "branch_id", p.ID, p.BranchIDs)
}

const categoryColumns = `c.id, c.business_id, c.name, c.deleted_at, c.created_at, c.updated_at`

func scanCategory(row scanner) (loyalty.ProductCategory, error) {
	var c loyalty.ProductCategory
	var deleted sql.NullTime
	err := row.Scan(&c.ID, &c.BusinessID, &c.Name, &deleted, &c.CreatedAt, &c.UpdatedAt)
	if err == sql.ErrNoRows {
		return c, loyalty.Errorf(loyalty.ENotFound, "Product category not found.")
	}
	c.Deleted = deleted.Valid
	return c, err
}

// ProductCategory returns one category of a business, deleted or not.
func (t *tx) ProductCategory(ctx context.Context, businessID string, id int64) (loyalty.ProductCategory, error) {
	return categoryByID(ctx, t.Tx, businessID, id)
}

// ProductCategory returns one category of a business, deleted or not.
func (d *DB) ProductCategory(ctx context.Context, businessID string, id int64) (loyalty.ProductCategory, error) {
	return categoryByID(ctx, d.db, businessID, id)
}

func categoryByID(ctx context.Context, q querier, businessID string, id int64) (loyalty.ProductCategory, error) {
	c, err := scanCategory(q.QueryRowContext(ctx, `SELECT `+categoryColumns+` FROM product_categories c
		WHERE c.business_id = $1 AND c.id = $2`, businessID, id))
	return c, dbError(err)
}

// ProductCategories pages the live categories of a business, oldest first.
func (d *DB) ProductCategories(ctx context.Context, businessID string, q loyalty.ListQuery) ([]loyalty.ProductCategory, int, error) {
	from, args, err := listWhere([]string{"c.business_id = $1", "c.deleted_at IS NULL"}, []any{businessID}, q, nil)
	if err != nil {
		return nil, 0, err
	}
	var out []loyalty.ProductCategory
	total, err := d.listPage(ctx, categoryColumns, `FROM product_categories c`+from, `c.id`, args, q, func(rows *sql.Rows) error {
		c, err := scanCategory(rows)
		out = append(out, c)
		return err
	})
	return out, total, err
}

// InsertProductCategory stores a new category.
func (t *tx) InsertProductCategory(ctx context.Context, c *loyalty.ProductCategory) error {
	return dbError(t.QueryRowContext(ctx, `INSERT INTO product_categories (business_id, name, created_at, updated_at)
		VALUES ($1, $2, $3, $4) RETURNING id`, c.BusinessID, c.Name, c.CreatedAt.UTC(), c.UpdatedAt.UTC()).Scan(&c.ID))
}

// UpdateProductCategory writes a category's name, or its deletion.
func (t *tx) UpdateProductCategory(ctx context.Context, c *loyalty.ProductCategory) error {
	var deleted sql.NullTime
	if c.Deleted {
		deleted = nullTime(c.UpdatedAt)
	}
	_, err := t.ExecContext(ctx, `UPDATE product_categories SET name = $1, deleted_at = $2, updated_at = $3
		WHERE business_id = $4 AND id = $5`, c.Name, deleted, c.UpdatedAt.UTC(), c.BusinessID, c.ID)
	return dbError(err)
}

// UncategoriseProducts takes a category off the products of a business.
func (t *tx) UncategoriseProducts(ctx context.Context, businessID string, categoryID int64, at time.Time) error {
	t.accessChanged() // ends the cached SKU lookups (skuCache)
	_, err := t.ExecContext(ctx, `UPDATE products SET category_id = NULL, updated_at = $1 WHERE business_id = $2 AND category_id = $3`,
		at.UTC(), businessID, categoryID)
	return dbError(err)
}

// ProductsBySKU returns what a basket takes (loyalty.ProductRef) of the live
// products of a business with the SKUs, by SKU.
func (t *tx) ProductsBySKU(ctx context.Context, businessID string, skus []string) (map[string]loyalty.ProductRef, error) {
	return productsBySKU(ctx, t.Tx, businessID, skus)
}

// ProductsBySKU returns what a basket takes (loyalty.ProductRef) of the live
// products of a business with the SKUs, by SKU.
func (d *DB) ProductsBySKU(ctx context.Context, businessID string, skus []string) (map[string]loyalty.ProductRef, error) {
	return d.cachedProductsBySKU(ctx, businessID, skus)
}

func productsBySKU(ctx context.Context, q querier, businessID string, skus []string) (map[string]loyalty.ProductRef, error) {
	out := make(map[string]loyalty.ProductRef, len(skus))
	if len(skus) == 0 {
		return out, nil
	}
	// What a basket's lines take of a product, and no more: this read is
	// on the path of every reward and dry run with a basket. The SKUs
	// asked for are never empty; length(p.sku) > 0 lets both engines use
	// the partial index products_sku, whose predicate it repeats.
	list, args := placeholders([]any{businessID}, skus)
	rows, err := q.QueryContext(ctx, `SELECT p.id, p.sku, p.category_id, p.tags FROM products p
		WHERE p.business_id = $1 AND p.sku IN (`+list+`) AND p.deleted_at IS NULL AND length(p.sku) > 0`, args...)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p loyalty.ProductRef
		var sku string
		var category sql.NullInt64
		var tags string
		if err := rows.Scan(&p.ID, &sku, &category, &tags); err != nil {
			return nil, dbError(err)
		}
		p.CategoryID = category.Int64
		if tags != "[]" && tags != "" {
			if err := json.Unmarshal([]byte(tags), &p.Tags); err != nil {
				return nil, err
			}
		}
		out[sku] = p
	}
	return out, dbError(rows.Err())
}
