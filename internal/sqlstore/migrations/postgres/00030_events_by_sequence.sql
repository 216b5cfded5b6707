-- +goose Up
-- Nothing on PostgreSQL: 00030 rebuilds SQLite's event log keyed by
-- (business_id, seq) (see migrations/sqlite/00030). PostgreSQL's
-- transactions insert their events unnumbered, for the sequencer to
-- number after they commit, so its table keeps 00015's shape: the id as
-- key, and the partial indexes of numbered and pending events.
SELECT 1;

-- +goose Down
SELECT 1;
