package loyalty

import (
	"context"
	"strings"
)

// CategoryInput is the body of a category create or update.
type CategoryInput struct {
	Name Opt[string] `json:"name"`
}

// Categories pages the live categories, oldest first.
func (s *ProductService) Categories(ctx context.Context, b Business, q ListQuery) ([]ProductCategory, int, error) {
	return s.Store.ProductCategories(ctx, b.ID, q)
}

// Category returns one live category.
func (s *ProductService) Category(ctx context.Context, b Business, id string) (ProductCategory, error) {
	cid, err := intID("category", id)
	if err != nil {
		return ProductCategory{}, err
	}
	c, err := s.Store.ProductCategory(ctx, b.ID, cid)
	if err == nil && c.Deleted {
		err = categoryNotFound()
	}
	return c, err
}

func categoryNotFound() error { return Errorf(ENotFound, "Product category not found.") }

// SaveCategory creates a category (id "") or renames one.
func (s *ProductService) SaveCategory(ctx context.Context, b Business, id string, in CategoryInput) (ProductCategory, error) {
	var c ProductCategory
	if id != "" {
		var err error
		if c, err = s.Category(ctx, b, id); err != nil {
			return c, err
		}
	}
	name, ok := in.Name.Value()
	switch name = strings.TrimSpace(name); {
	case !ok || name == "":
		return c, Invalid("name", "The name field is required.")
	case len(name) > maxCategoryName:
		return c, Invalid("name", "The name may not be greater than "+itoa(maxCategoryName)+" characters.")
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		c.BusinessID, c.Name, c.UpdatedAt = b.ID, name, tx.Now()
		if c.ID == 0 {
			c.CreatedAt = c.UpdatedAt
			return tx.InsertProductCategory(ctx, &c)
		}
		return tx.UpdateProductCategory(ctx, &c)
	})
	return c, err
}

// DeleteCategory removes a category; its products become uncategorised.
func (s *ProductService) DeleteCategory(ctx context.Context, b Business, id string) error {
	c, err := s.Category(ctx, b, id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		c.Deleted, c.UpdatedAt = true, tx.Now()
		if err := tx.UpdateProductCategory(ctx, &c); err != nil {
			return err
		}
		return tx.UncategoriseProducts(ctx, b.ID, c.ID, c.UpdatedAt)
	})
}
