-- +goose Up
-- Throw-away: a column on SQLite only, to see TestSchemasAgree fail.
ALTER TABLE customers ADD COLUMN probe TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX customers_probe ON customers (business_id, probe);

-- +goose Down
DROP INDEX customers_probe;
ALTER TABLE customers DROP COLUMN probe;
