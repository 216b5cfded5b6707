-- +goose Up
-- The number of active customers of each business, kept by triggers in
-- the transaction of every change to customers, so that the total of an
-- unfiltered customer list is read from a few rows instead of counted
-- over all of a business's customers. A business's count is split over
-- shards, one per server process (pg_backend_pid): concurrent sign-ups
-- then rarely wait on one row, and a transaction that adds many
-- customers locks a single shard, so two such never deadlock. The count
-- is the sum of the shards.
CREATE TABLE customer_counts (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    shard       INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (business_id, shard)
);
INSERT INTO customer_counts (business_id, shard, n)
    SELECT business_id, 0, COUNT(*) FROM customers WHERE deleted_at IS NULL GROUP BY business_id;

-- +goose StatementBegin
CREATE FUNCTION customer_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    was BOOLEAN := TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL;
    now_active BOOLEAN := TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL;
    delta INTEGER := now_active::INTEGER - was::INTEGER;
BEGIN
    IF delta <> 0 THEN
        INSERT INTO customer_counts (business_id, shard, n)
            VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.business_id ELSE NEW.business_id END, pg_backend_pid() % 16, delta)
            ON CONFLICT (business_id, shard) DO UPDATE SET n = customer_counts.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER customer_counts_follow AFTER INSERT OR DELETE OR UPDATE OF deleted_at ON customers
    FOR EACH ROW EXECUTE FUNCTION customer_counts_follow();

-- +goose Down
DROP TRIGGER customer_counts_follow ON customers;
DROP FUNCTION customer_counts_follow();
DROP TABLE customer_counts;
