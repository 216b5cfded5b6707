-- +goose Up
-- The event log's keys compare byte by byte (COLLATE "C"): ids and
-- business ids are hex, which sort the same either way, and every batch of
-- rewards inserts its events into two indexes on them, which under the
-- database's collation (strcoll) compared about twice as slowly. Changing
-- the collation of a text column rewrites no row; the indexes are rebuilt.
ALTER TABLE events ALTER COLUMN id TYPE TEXT COLLATE "C", ALTER COLUMN business_id TYPE TEXT COLLATE "C";

-- +goose Down
ALTER TABLE events ALTER COLUMN id TYPE TEXT COLLATE "default", ALTER COLUMN business_id TYPE TEXT COLLATE "default";
