-- +goose Up
-- The number of ledger entries of each business and type code, kept by
-- triggers in the transaction of every insert into (and delete from)
-- transactions, so that the total of a business's ledger list (whole, or
-- filtered by type code only) is read from a few rows instead of counted
-- over all of its entries. SQLite has one writer: one shard (0)
-- suffices, and this migration's transaction holds writers off while it
-- counts the entries there are.
CREATE TABLE transaction_counts (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    type_code   INTEGER NOT NULL,
    shard       INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (business_id, type_code, shard)
);
INSERT INTO transaction_counts (business_id, type_code, shard, n)
    SELECT business_id, type_code, 0, COUNT(*) FROM transactions GROUP BY business_id, type_code;

-- +goose StatementBegin
CREATE TRIGGER transaction_counts_insert AFTER INSERT ON transactions
BEGIN
    INSERT INTO transaction_counts (business_id, type_code, shard, n) VALUES (NEW.business_id, NEW.type_code, 0, 1)
        ON CONFLICT (business_id, type_code, shard) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER transaction_counts_delete AFTER DELETE ON transactions
BEGIN
    UPDATE transaction_counts SET n = n - 1
        WHERE business_id = OLD.business_id AND type_code = OLD.type_code AND shard = 0;
END;
-- +goose StatementEnd
-- No path changes an entry's business or type code; should one, it moves
-- from one count to the other.
-- +goose StatementBegin
CREATE TRIGGER transaction_counts_update AFTER UPDATE OF business_id, type_code ON transactions
    WHEN OLD.business_id IS NOT NEW.business_id OR OLD.type_code IS NOT NEW.type_code
BEGIN
    UPDATE transaction_counts SET n = n - 1
        WHERE business_id = OLD.business_id AND type_code = OLD.type_code AND shard = 0;
    INSERT INTO transaction_counts (business_id, type_code, shard, n) VALUES (NEW.business_id, NEW.type_code, 0, 1)
        ON CONFLICT (business_id, type_code, shard) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER transaction_counts_update;
DROP TRIGGER transaction_counts_delete;
DROP TRIGGER transaction_counts_insert;
DROP TABLE transaction_counts;
