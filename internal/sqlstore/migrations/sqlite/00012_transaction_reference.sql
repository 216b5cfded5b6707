-- +goose Up
-- What a transaction keeps of the reference platform's body: the number of
-- the business's receipt and free comments.
ALTER TABLE transactions ADD COLUMN receipt_number TEXT NOT NULL DEFAULT '';
ALTER TABLE transactions ADD COLUMN comments TEXT NOT NULL DEFAULT '';

-- A business has one main branch, found by this index; a transaction that
-- names no branch belongs to it, and so do the entries written before
-- this rule.
CREATE UNIQUE INDEX branches_main ON branches (business_id) WHERE is_main;
UPDATE transactions SET branch_id = (SELECT m.id FROM branches m WHERE m.business_id = transactions.business_id AND m.is_main)
WHERE branch_id IS NULL;

-- Idempotency keys are kept for a while (loyalty.IdempotencyKeyTTL), then
-- forgotten: the purge finds a business's old keys by this index.
CREATE INDEX idempotency_keys_created ON idempotency_keys (business_id, created_at);

-- +goose Down
DROP INDEX idempotency_keys_created;
DROP INDEX branches_main;
ALTER TABLE transactions DROP COLUMN comments;
ALTER TABLE transactions DROP COLUMN receipt_number;
