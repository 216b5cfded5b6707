-- +goose NO TRANSACTION
-- Online (docs/operations.md, Upgrading): every statement runs on its
-- own, each written to be run again should the migration stop midway.
-- +goose Up
-- The number of ledger entries of each business and type code, kept by
-- triggers in the transaction of every insert into (and delete from)
-- transactions, so that the total of a business's ledger list (whole, or
-- filtered by type code only) is the sum of a few rows instead of a count
-- of all of its entries. As customer_counts (00018), a count is split
-- over shards, one per server process (pg_backend_pid() % 16): concurrent
-- writers rarely wait on one row. Shard -1 holds the entries written
-- before the triggers existed (the backfill below).
CREATE TABLE IF NOT EXISTS transaction_counts (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    type_code   INTEGER NOT NULL,
    shard       INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (business_id, type_code, shard)
);

-- One upsert per (business, type code) per statement, from the
-- statement's transition table: the group writer inserts a whole batch
-- of entries in one statement (batchSQL). Grouped, so that no row is
-- upserted twice by one statement, and in key order, so that two
-- statements on one shard lock its rows in the same order.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION transaction_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO transaction_counts (business_id, type_code, shard, n)
        SELECT a.business_id, a.type_code, pg_backend_pid() % 16, COUNT(*)
        FROM transaction_counts_added a GROUP BY a.business_id, a.type_code
        ORDER BY a.business_id, a.type_code
        ON CONFLICT (business_id, type_code, shard) DO UPDATE SET n = transaction_counts.n + EXCLUDED.n;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION transaction_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO transaction_counts (business_id, type_code, shard, n)
        SELECT r.business_id, r.type_code, pg_backend_pid() % 16, -COUNT(*)
        FROM transaction_counts_removed r GROUP BY r.business_id, r.type_code
        ORDER BY r.business_id, r.type_code
        ON CONFLICT (business_id, type_code, shard) DO UPDATE SET n = transaction_counts.n + EXCLUDED.n;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- No path changes an entry's business or type code; should one, a row
-- trigger moves it from one count to the other (the column list and the
-- WHEN keep it from running for any other update).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION transaction_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO transaction_counts (business_id, type_code, shard, n)
        VALUES (OLD.business_id, OLD.type_code, pg_backend_pid() % 16, -1), (NEW.business_id, NEW.type_code, pg_backend_pid() % 16, 1)
        ON CONFLICT (business_id, type_code, shard) DO UPDATE SET n = transaction_counts.n + EXCLUDED.n;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- CREATE TRIGGER takes a lock that waits for every transaction writing
-- entries to finish: once it commits, every entry inserted or deleted is
-- counted by the triggers, in the transaction that writes it.
CREATE OR REPLACE TRIGGER transaction_counts_insert AFTER INSERT ON transactions
    REFERENCING NEW TABLE AS transaction_counts_added
    FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_insert();
CREATE OR REPLACE TRIGGER transaction_counts_delete AFTER DELETE ON transactions
    REFERENCING OLD TABLE AS transaction_counts_removed
    FOR EACH STATEMENT EXECUTE FUNCTION transaction_counts_delete();
CREATE OR REPLACE TRIGGER transaction_counts_update AFTER UPDATE OF business_id, type_code ON transactions
    FOR EACH ROW WHEN (OLD.business_id IS DISTINCT FROM NEW.business_id OR OLD.type_code IS DISTINCT FROM NEW.type_code)
    EXECUTE FUNCTION transaction_counts_update();

-- The backfill: the entries the triggers never saw, those committed
-- before them, go to shard -1. The store reserves entry ids ahead
-- (nextval, batch.go), so no id separates them from later ones; a
-- snapshot does. This is one statement, which in READ COMMITTED reads one
-- snapshot: in it, the other shards hold exactly the entries committed
-- after the triggers (a transaction's count rows commit atomically with
-- the entries they count), so COUNT(entries) - SUM(other shards) is the
-- number committed before them, a number no later write changes. It sets
-- shard -1 to that (replacing, not adding), so running it again, after
-- any number of writes, gives the same rows. It only reads the ledger and
-- writes rows no writer touches: writers never wait for it.
-- backfill
INSERT INTO transaction_counts (business_id, type_code, shard, n)
    SELECT COALESCE(e.business_id, s.business_id), COALESCE(e.type_code, s.type_code), -1,
        COALESCE(e.n, 0) - COALESCE(s.n, 0)
    FROM (SELECT t.business_id, t.type_code, COUNT(*) AS n FROM transactions t GROUP BY t.business_id, t.type_code) e
    FULL JOIN (SELECT c.business_id, c.type_code, SUM(c.n) AS n FROM transaction_counts c WHERE c.shard <> -1
        GROUP BY c.business_id, c.type_code) s ON s.business_id = e.business_id AND s.type_code = e.type_code
    ON CONFLICT (business_id, type_code, shard) DO UPDATE SET n = EXCLUDED.n;

-- +goose Down
DROP TRIGGER IF EXISTS transaction_counts_update ON transactions;
DROP TRIGGER IF EXISTS transaction_counts_delete ON transactions;
DROP TRIGGER IF EXISTS transaction_counts_insert ON transactions;
DROP FUNCTION IF EXISTS transaction_counts_update();
DROP FUNCTION IF EXISTS transaction_counts_delete();
DROP FUNCTION IF EXISTS transaction_counts_insert();
DROP TABLE IF EXISTS transaction_counts;
