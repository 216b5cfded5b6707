-- +goose Up
-- A customer's entries by time: the history's pages, newest first, and the
-- sums of a tier period, without reading the rest of the customer's ledger.
-- (PostgreSQL's 00008 also replaces the entry's business and person keys
-- with one key to the customer row, which its concurrent writers need;
-- SQLite would have to rebuild the table for it, and has one writer.)
DROP INDEX transactions_customer;
CREATE INDEX transactions_customer ON transactions (business_id, customer_id, created_at, id);

-- +goose Down
DROP INDEX transactions_customer;
CREATE INDEX transactions_customer ON transactions (business_id, customer_id, id);
