-- +goose Up
-- No write may depend on how big the planner believes customers is.
--
-- 1. The console's prefix-search indexes began with business_id, so on a
-- table the planner believed small each served `business_id = $1 AND
-- user_id = $2` as cheaply as the primary key, and PostgreSQL, choosing
-- among equals, took the newest. A statement planned then keeps that
-- plan: the foreign-key checks of every ledger entry and point lot are
-- such statements, prepared once per connection, and at 200,000
-- customers each read the whole business (21 rewards/s). Keyed instead by
-- one expression that starts with the business and a space (ids have
-- none), they serve the same searches, LIKE 'business prefix%', and no
-- key lookup can use them.
DROP INDEX customers_email_prefix;
DROP INDEX customers_phone_prefix;
DROP INDEX customers_name_prefix;
DROP INDEX customers_last_name_prefix;
CREATE INDEX customers_email_prefix ON customers ((business_id || ' ' || email) text_pattern_ops);
CREATE INDEX customers_phone_prefix ON customers ((business_id || ' ' || phone) text_pattern_ops);
CREATE INDEX customers_name_prefix ON customers ((business_id || ' ' || lower(first_name || ' ' || last_name)) text_pattern_ops);
CREATE INDEX customers_last_name_prefix ON customers ((business_id || ' ' || lower(last_name)) text_pattern_ops);

-- 2. The customer counts follow inserts and deletes once per statement
-- (transition tables), not once per row: a bulk load of n customers of a
-- business updated the same count row n times in one transaction, each
-- update walking the versions the previous ones left (200,000 customers:
-- 194 s). A statement adds to each business's row in business order, so
-- two statements never lock the same rows in opposite orders.
DROP TRIGGER customer_counts_follow ON customers;
-- +goose StatementBegin
CREATE FUNCTION customer_counts_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO customer_counts (business_id, shard, n)
        SELECT business_id, pg_backend_pid() % 16, COUNT(*) FROM added WHERE deleted_at IS NULL
        GROUP BY business_id ORDER BY business_id
        ON CONFLICT (business_id, shard) DO UPDATE SET n = customer_counts.n + EXCLUDED.n;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION customer_counts_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO customer_counts (business_id, shard, n)
        SELECT business_id, pg_backend_pid() % 16, -COUNT(*) FROM removed WHERE deleted_at IS NULL
        GROUP BY business_id ORDER BY business_id
        ON CONFLICT (business_id, shard) DO UPDATE SET n = customer_counts.n + EXCLUDED.n;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER customer_counts_insert AFTER INSERT ON customers
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION customer_counts_added();
CREATE TRIGGER customer_counts_delete AFTER DELETE ON customers
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION customer_counts_removed();
-- A transition table cannot go with a column list: a change of
-- deleted_at (rare: one customer deleted or restored) stays per row.
CREATE TRIGGER customer_counts_follow AFTER UPDATE OF deleted_at ON customers
    FOR EACH ROW EXECUTE FUNCTION customer_counts_follow();

-- +goose Down
DROP TRIGGER customer_counts_follow ON customers;
DROP TRIGGER customer_counts_delete ON customers;
DROP TRIGGER customer_counts_insert ON customers;
DROP FUNCTION customer_counts_removed();
DROP FUNCTION customer_counts_added();
CREATE TRIGGER customer_counts_follow AFTER INSERT OR DELETE OR UPDATE OF deleted_at ON customers
    FOR EACH ROW EXECUTE FUNCTION customer_counts_follow();
DROP INDEX customers_last_name_prefix;
DROP INDEX customers_name_prefix;
DROP INDEX customers_phone_prefix;
DROP INDEX customers_email_prefix;
CREATE INDEX customers_email_prefix ON customers (business_id, email text_pattern_ops);
CREATE INDEX customers_phone_prefix ON customers (business_id, phone text_pattern_ops);
CREATE INDEX customers_name_prefix ON customers (business_id, lower(first_name || ' ' || last_name) text_pattern_ops);
CREATE INDEX customers_last_name_prefix ON customers (business_id, lower(last_name) text_pattern_ops);
