-- +goose Up
-- A basket line names the product its SKU named when the reward was made
-- (the domain resolves it; products are only ever soft-deleted). The
-- foreign key made each line of each reward take a FOR KEY SHARE lock on
-- its product's row, so concurrent rewards of the same popular products
-- shared those rows through multixacts: measured, a 5-line basket reward
-- cost PostgreSQL about a quarter more CPU with it. The lines keep their
-- key to the entry.
ALTER TABLE basket_lines DROP CONSTRAINT basket_lines_product_id_fkey;

-- +goose Down
ALTER TABLE basket_lines ADD CONSTRAINT basket_lines_product_id_fkey FOREIGN KEY (product_id) REFERENCES products (id);
