-- +goose Up
-- A basket and its lines are each kept in their primary key's b-tree
-- (WITHOUT ROWID), where each was a table with a second b-tree for its
-- key: a basket reward dirtied four pages of them in a commit, two now,
-- and SQLite writes each dirty page to the WAL. The lines lose their
-- foreign keys to the entry and to products, as PostgreSQL's did in 00072
-- and 00044 (a line is written only with its basket, which keeps its key
-- to the entry; the domain resolves a line's product, and products are
-- only ever soft-deleted). The tables are rebuilt: the time is that of
-- copying the baskets once.
CREATE TABLE baskets_new (
    entry_id    BIGINT NOT NULL PRIMARY KEY REFERENCES transactions (id),
    business_id TEXT NOT NULL,
    tax         BIGINT NOT NULL DEFAULT 0,
    shipping    BIGINT NOT NULL DEFAULT 0,
    channel     TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL,
    returns_id  BIGINT REFERENCES transactions (id)
) WITHOUT ROWID;
INSERT INTO baskets_new (entry_id, business_id, tax, shipping, channel, created_at, returns_id)
    SELECT entry_id, business_id, tax, shipping, channel, created_at, returns_id FROM baskets;
DROP TABLE baskets;
ALTER TABLE baskets_new RENAME TO baskets;
CREATE INDEX baskets_returns ON baskets (returns_id) WHERE returns_id IS NOT NULL;

CREATE TABLE basket_lines_new (
    entry_id    BIGINT NOT NULL,
    line        INTEGER NOT NULL,
    sku         TEXT NOT NULL,
    product_id  BIGINT,
    category_id BIGINT,
    quantity    BIGINT NOT NULL,
    price       BIGINT NOT NULL,
    discount    BIGINT NOT NULL DEFAULT 0,
    points      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (entry_id, line)
) WITHOUT ROWID;
INSERT INTO basket_lines_new (entry_id, line, sku, product_id, category_id, quantity, price, discount, points)
    SELECT entry_id, line, sku, product_id, category_id, quantity, price, discount, points FROM basket_lines;
DROP TABLE basket_lines;
ALTER TABLE basket_lines_new RENAME TO basket_lines;

-- +goose Down
CREATE TABLE baskets_old (
    entry_id    BIGINT NOT NULL PRIMARY KEY REFERENCES transactions (id),
    business_id TEXT NOT NULL,
    tax         BIGINT NOT NULL DEFAULT 0,
    shipping    BIGINT NOT NULL DEFAULT 0,
    channel     TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL,
    returns_id  BIGINT REFERENCES transactions (id)
);
INSERT INTO baskets_old SELECT entry_id, business_id, tax, shipping, channel, created_at, returns_id FROM baskets;
DROP TABLE baskets;
ALTER TABLE baskets_old RENAME TO baskets;
CREATE INDEX baskets_returns ON baskets (returns_id) WHERE returns_id IS NOT NULL;

CREATE TABLE basket_lines_old (
    entry_id    BIGINT NOT NULL REFERENCES transactions (id),
    line        INTEGER NOT NULL,
    sku         TEXT NOT NULL,
    product_id  BIGINT REFERENCES products (id),
    category_id BIGINT,
    quantity    BIGINT NOT NULL,
    price       BIGINT NOT NULL,
    discount    BIGINT NOT NULL DEFAULT 0,
    points      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (entry_id, line)
);
INSERT INTO basket_lines_old SELECT entry_id, line, sku, product_id, category_id, quantity, price, discount, points FROM basket_lines;
DROP TABLE basket_lines;
ALTER TABLE basket_lines_old RENAME TO basket_lines;
