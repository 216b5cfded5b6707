-- +goose Up
-- A basket's lines are written only with their basket, in the same
-- statement (the group writer's) or transaction, and no entry, basket or
-- line is ever deleted: the basket's own key to its entry holds what the
-- lines' key held. Each line's check locked the entry's row FOR KEY SHARE,
-- five lookups of the ledger's key for a 5-line basket; the basket keeps
-- its key, the lines their primary key (entry_id, line).
ALTER TABLE basket_lines DROP CONSTRAINT basket_lines_entry_id_fkey;

-- +goose Down
ALTER TABLE basket_lines ADD CONSTRAINT basket_lines_entry_id_fkey FOREIGN KEY (entry_id) REFERENCES transactions (id);
