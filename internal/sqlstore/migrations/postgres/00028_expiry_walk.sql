-- +goose Up
-- point_lots_expiry is the points scheduler's walk by expiry time. Keyed
-- on (expires_at, business_id, customer_id), it also looked, to the
-- planner of a generic plan on a new database, like the way to a
-- customer's expiring lots: the balance of every customer read walked it
-- from the earliest expiry of every business, filtering on the customer.
-- With the customer carried along but not in the key, the walk by time
-- stays index-only and a customer's lots are found only through
-- point_lots_customer (TestCustomerReadWalksItsLots).
DROP INDEX point_lots_expiry;
CREATE INDEX point_lots_expiry ON point_lots (expires_at) INCLUDE (business_id, customer_id)
    WHERE state = 'active' AND expires_at IS NOT NULL;

-- +goose Down
DROP INDEX point_lots_expiry;
CREATE INDEX point_lots_expiry ON point_lots (expires_at, business_id, customer_id) WHERE state = 'active' AND expires_at IS NOT NULL;
