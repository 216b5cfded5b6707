-- +goose Up
-- The products a business sells (the reference's /products) and their
-- categories, for rules over what a basket holds. A product's SKU, when
-- it has one, names one live product of its business: a till's basket
-- and a batch upsert find it by it.
CREATE TABLE product_categories (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    name        TEXT NOT NULL,
    deleted_at  DATETIME,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE INDEX product_categories_business ON product_categories (business_id);

CREATE TABLE products (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  TEXT NOT NULL REFERENCES businesses (id),
    sku          TEXT NOT NULL DEFAULT '',
    title        TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    languages    TEXT NOT NULL DEFAULT '[]',
    images       TEXT NOT NULL DEFAULT '[]',
    actual_price BIGINT NOT NULL DEFAULT 0,
    real_price   BIGINT NOT NULL DEFAULT 0,
    promote      BOOLEAN NOT NULL DEFAULT FALSE,
    category_id  BIGINT REFERENCES product_categories (id),
    tags         TEXT NOT NULL DEFAULT '[]',
    deleted_at   DATETIME,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);
CREATE INDEX products_business ON products (business_id, id);
CREATE UNIQUE INDEX products_sku ON products (business_id, sku) WHERE deleted_at IS NULL AND length(sku) > 0;

CREATE TABLE product_branches (
    product_id BIGINT NOT NULL REFERENCES products (id),
    branch_id  TEXT NOT NULL REFERENCES branches (id),
    PRIMARY KEY (product_id, branch_id)
);

-- An import may bring products in (upserted by SKU). SQLite cannot change
-- a CHECK in place, and three tables refer to imports, so the table is not
-- rebuilt: its definition is rewritten in the schema, the way SQLite's
-- documentation gives for changing a CHECK (the rows already satisfy the
-- wider one).
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (kind IN (''customers'', ''transactions''))',
    'CHECK (kind IN (''customers'', ''transactions'', ''products''))') WHERE type = 'table' AND name = 'imports';
PRAGMA writable_schema = OFF;

-- +goose Down
DELETE FROM import_chunks WHERE import_id IN (SELECT id FROM imports WHERE kind = 'products');
DELETE FROM import_errors WHERE import_id IN (SELECT id FROM imports WHERE kind = 'products');
DELETE FROM import_rows WHERE import_id IN (SELECT id FROM imports WHERE kind = 'products');
DELETE FROM imports WHERE kind = 'products';
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (kind IN (''customers'', ''transactions'', ''products''))',
    'CHECK (kind IN (''customers'', ''transactions''))') WHERE type = 'table' AND name = 'imports';
PRAGMA writable_schema = OFF;
DROP TABLE product_branches;
DROP TABLE products;
DROP TABLE product_categories;
