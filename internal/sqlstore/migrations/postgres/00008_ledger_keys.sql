-- +goose Up
-- A ledger entry belongs to a customer of its business: one key to the
-- customer row instead of one to the business and one to the person. It
-- says more, and it costs less: the check finds the customer row that the
-- entry's balance move has locked already, where the business key locked,
-- for every entry, the one business row that all of them share.
ALTER TABLE transactions DROP CONSTRAINT transactions_business_id_fkey;
ALTER TABLE transactions DROP CONSTRAINT transactions_customer_id_fkey;
ALTER TABLE transactions ADD CONSTRAINT transactions_customer_fkey
    FOREIGN KEY (business_id, customer_id) REFERENCES customers (business_id, user_id);

-- A customer's entries by time: the history's pages, newest first, and the
-- sums of a tier period, without reading the rest of the customer's ledger.
DROP INDEX transactions_customer;
CREATE INDEX transactions_customer ON transactions (business_id, customer_id, created_at, id);

-- Only a cancelling entry has reverses_id; the others need no index entry.
ALTER TABLE transactions DROP CONSTRAINT transactions_reverses_id_key;
CREATE UNIQUE INDEX transactions_reverses ON transactions (reverses_id) WHERE reverses_id IS NOT NULL;

-- +goose Down
DROP INDEX transactions_reverses;
ALTER TABLE transactions ADD CONSTRAINT transactions_reverses_id_key UNIQUE (reverses_id);
DROP INDEX transactions_customer;
CREATE INDEX transactions_customer ON transactions (business_id, customer_id, id);
ALTER TABLE transactions DROP CONSTRAINT transactions_customer_fkey;
ALTER TABLE transactions ADD CONSTRAINT transactions_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES users (id);
ALTER TABLE transactions ADD CONSTRAINT transactions_business_id_fkey FOREIGN KEY (business_id) REFERENCES businesses (id);
