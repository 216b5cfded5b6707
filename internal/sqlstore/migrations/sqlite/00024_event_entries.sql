-- +goose Up
-- A transaction.created event of an everyday reward (written by the
-- reward batch) names its ledger entry instead of carrying a copy of it:
-- entry_id is set and data is empty, and a reader renders the entry as
-- GET /transactions shows it. Entries are append-only, so the view read
-- later is the view at the time. It spares the reward path a second copy
-- of each entry.
ALTER TABLE events ADD COLUMN entry_id BIGINT;

-- +goose Down
ALTER TABLE events DROP COLUMN entry_id;
