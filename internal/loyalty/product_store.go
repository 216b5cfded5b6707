package loyalty

import (
	"context"
	"time"
)

// ProductReader reads a business's products and categories.
type ProductReader interface {
	// Product returns one product of a business, deleted or not, with its
	// branches (ENotFound when none).
	Product(ctx context.Context, businessID string, id int64) (Product, error)
	// Products pages the live products of a business, oldest first.
	Products(ctx context.Context, businessID string, q ListQuery) ([]Product, int, error)
	// SearchProducts pages the live products of a business whose title
	// or SKU, lower-cased, holds text, oldest first.
	SearchProducts(ctx context.Context, businessID, text string, q ListQuery) ([]Product, int, error)
	// ProductCategory returns one category, deleted or not.
	ProductCategory(ctx context.Context, businessID string, id int64) (ProductCategory, error)
	// ProductCategories pages the live categories, oldest first.
	ProductCategories(ctx context.Context, businessID string, q ListQuery) ([]ProductCategory, int, error)
	BasketReader
	// Baskets returns the baskets of the entries ids that have one, by id.
	Baskets(ctx context.Context, businessID string, ids []int64) (map[int64]*Basket, error)
}

// ProductTx writes products and categories in a transaction.
type ProductTx interface {
	// Product and ProductCategory are ProductReader's, in the transaction.
	Product(ctx context.Context, businessID string, id int64) (Product, error)
	ProductCategory(ctx context.Context, businessID string, id int64) (ProductCategory, error)
	// ProductBySKU returns the live product of a business with the SKU,
	// or ENotFound.
	ProductBySKU(ctx context.Context, businessID, sku string) (Product, error)
	// InsertProduct stores a new product with its branches, setting p.ID.
	InsertProduct(ctx context.Context, p *Product) error
	// InsertProducts stores new products, each with a SKU no live product
	// has, in few statements, setting each ID.
	InsertProducts(ctx context.Context, ps []*Product) error
	// UpdateProduct writes every field and the branches of a product; a
	// Deleted one is stamped deleted at its UpdatedAt.
	UpdateProduct(ctx context.Context, p *Product) error
	// InsertProductCategory stores a new category, setting c.ID.
	InsertProductCategory(ctx context.Context, c *ProductCategory) error
	// UpdateProductCategory writes a category's name, or stamps it
	// deleted at its UpdatedAt.
	UpdateProductCategory(ctx context.Context, c *ProductCategory) error
	BasketReader
	// InsertBasket writes the basket of an entry just appended.
	InsertBasket(ctx context.Context, e *Transaction) error
	// UncategoriseProducts takes the category off every product of it,
	// dating the change at.
	UncategoriseProducts(ctx context.Context, businessID string, categoryID int64, at time.Time) error
}
