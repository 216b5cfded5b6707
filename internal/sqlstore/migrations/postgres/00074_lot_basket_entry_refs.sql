-- +goose Up
-- A lot and a basket are written only with the entry they belong to: in
-- the group writer's one statement, where a lot or basket is inserted
-- only for an entry that statement writes (both join the same customer
-- update), or in the entry's own transaction. No entry, lot or basket is
-- ever deleted. Each key's check looked the entry up and locked it FOR
-- KEY SHARE, the costliest nested statement of a reward
-- (pg_stat_statements: about a fifth of the batch's time);
-- checkNoOrphans, run after both roads of TestRoadsAgree, holds the store
-- to what the keys held. The keys of a lot's uses and of a punch card's
-- stamps, written off the everyday road, stay.
ALTER TABLE point_lots DROP CONSTRAINT point_lots_entry_id_fkey;
ALTER TABLE baskets DROP CONSTRAINT baskets_entry_id_fkey;

-- +goose Down
ALTER TABLE baskets ADD CONSTRAINT baskets_entry_id_fkey FOREIGN KEY (entry_id) REFERENCES transactions (id);
ALTER TABLE point_lots ADD CONSTRAINT point_lots_entry_id_fkey FOREIGN KEY (entry_id) REFERENCES transactions (id);
