-- +goose Up
-- The number of active customers of each business, kept by triggers in
-- the transaction of every change to customers, so that the total of an
-- unfiltered customer list is read instead of counted over all of a
-- business's customers. SQLite has one writer: one shard (0) suffices.
CREATE TABLE customer_counts (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    shard       INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (business_id, shard)
);
INSERT INTO customer_counts (business_id, shard, n)
    SELECT business_id, 0, COUNT(*) FROM customers WHERE deleted_at IS NULL GROUP BY business_id;

-- +goose StatementBegin
CREATE TRIGGER customer_counts_insert AFTER INSERT ON customers WHEN NEW.deleted_at IS NULL
BEGIN
    INSERT INTO customer_counts (business_id, shard, n) VALUES (NEW.business_id, 0, 1)
        ON CONFLICT (business_id, shard) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER customer_counts_delete AFTER DELETE ON customers WHEN OLD.deleted_at IS NULL
BEGIN
    UPDATE customer_counts SET n = n - 1 WHERE business_id = OLD.business_id AND shard = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER customer_counts_update AFTER UPDATE OF deleted_at ON customers
    WHEN (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
BEGIN
    INSERT INTO customer_counts (business_id, shard, n)
        VALUES (NEW.business_id, 0, CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END)
        ON CONFLICT (business_id, shard) DO UPDATE SET n = n + excluded.n;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER customer_counts_update;
DROP TRIGGER customer_counts_delete;
DROP TRIGGER customer_counts_insert;
DROP TABLE customer_counts;
