-- +goose Up
-- What a reward's basket held: its lines, in the order sent, each with the
-- product its SKU named then (none for a SKU the business did not know),
-- and the basket's tax, shipping and channel. Written with the entry, in
-- its transaction, never changed.
CREATE TABLE baskets (
    entry_id    BIGINT NOT NULL PRIMARY KEY REFERENCES transactions (id),
    business_id TEXT NOT NULL,
    tax         BIGINT NOT NULL DEFAULT 0,
    shipping    BIGINT NOT NULL DEFAULT 0,
    channel     TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL
);

CREATE TABLE basket_lines (
    entry_id    BIGINT NOT NULL REFERENCES transactions (id),
    line        INTEGER NOT NULL,
    sku         TEXT NOT NULL,
    product_id  BIGINT REFERENCES products (id),
    category_id BIGINT,
    quantity    BIGINT NOT NULL,
    price       BIGINT NOT NULL,
    discount    BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (entry_id, line)
);

-- +goose Down
DROP TABLE basket_lines;
DROP TABLE baskets;
