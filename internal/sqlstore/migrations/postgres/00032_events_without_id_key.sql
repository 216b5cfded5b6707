-- +goose Up
-- The event log keeps no index of its ids, as SQLite's has not since its
-- 00030: each batch of rewards inserted its events into three b-trees
-- (the rows, the id's key, events_seq), and the id's was a third of
-- that for no reader. No query looks an event up by id: the sequencer
-- finds the pending ones through events_pending, and pruning walks each
-- business's numbered events by number through events_seq
-- (sqlstore.PruneEvents). The id stays NOT NULL and stays the event's
-- public id, unique as a UUIDv7 the store makes.
ALTER TABLE events DROP CONSTRAINT events_pkey;

-- +goose Down
ALTER TABLE events ADD PRIMARY KEY (id);
