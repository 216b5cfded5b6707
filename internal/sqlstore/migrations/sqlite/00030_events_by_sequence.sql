-- +goose Up
-- SQLite keeps each event once, in the order readers read it: a table
-- WITHOUT ROWID keyed by (business_id, seq). SQLite's single writer
-- numbers every event as it writes it (sqlstore/event.go), so no event
-- waits unnumbered and the key is never null. The table of 00015 kept
-- three b-trees (the rows by rowid, the id's unique index, and
-- events_seq), and each commit of the reward batch rewrote the last page
-- of all three, and the event_sequences row, in the WAL; this one
-- b-tree holds the row itself (an event of the ledger keeps only the
-- entry's id, see 00024). Pruning walks each business's events from its
-- oldest (sqlstore.PruneEvents), so the id needs no index: it is the
-- event's public id, unique as a UUIDv7. PostgreSQL keeps 00015's table
-- (see its 00030).

-- From here the newest event holds a business's last number, and its
-- event_sequences row only lists it and keeps the number as of the last
-- prune (sqlstore/event.go). Events an older writer left unnumbered (none
-- is expected) are numbered after the business's last, in id order, as
-- SequenceEvents does.
INSERT INTO event_sequences (business_id, last_seq)
SELECT DISTINCT business_id, 0 FROM events WHERE true -- (SQLite reads ON after FROM as a join's)
ON CONFLICT (business_id) DO NOTHING;
UPDATE event_sequences SET last_seq = (SELECT MAX(e.seq) FROM events e WHERE e.business_id = event_sequences.business_id)
WHERE last_seq < (SELECT MAX(e.seq) FROM events e WHERE e.business_id = event_sequences.business_id);
UPDATE events SET seq = (SELECT s.last_seq FROM event_sequences s WHERE s.business_id = events.business_id) + n.rn
FROM (SELECT id, row_number() OVER (PARTITION BY business_id ORDER BY id) AS rn FROM events WHERE seq IS NULL) AS n
WHERE events.id = n.id;
UPDATE event_sequences SET last_seq = (SELECT MAX(e.seq) FROM events e WHERE e.business_id = event_sequences.business_id)
WHERE last_seq < (SELECT MAX(e.seq) FROM events e WHERE e.business_id = event_sequences.business_id);

CREATE TABLE events_by_seq (
    business_id TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    id          TEXT NOT NULL,
    type        TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    data        TEXT NOT NULL,
    entry_id    BIGINT,
    PRIMARY KEY (business_id, seq)
) WITHOUT ROWID;
INSERT INTO events_by_seq (business_id, seq, id, type, created_at, data, entry_id)
SELECT business_id, seq, id, type, created_at, data, entry_id FROM events;
DROP TABLE events;
ALTER TABLE events_by_seq RENAME TO events;

-- +goose Down
-- The older writer numbers after the event_sequences row.
UPDATE event_sequences SET last_seq = (SELECT MAX(e.seq) FROM events e WHERE e.business_id = event_sequences.business_id)
WHERE last_seq < (SELECT MAX(e.seq) FROM events e WHERE e.business_id = event_sequences.business_id);
CREATE TABLE events_by_id (
    id          TEXT PRIMARY KEY NOT NULL,
    business_id TEXT NOT NULL,
    seq         BIGINT,
    type        TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    data        TEXT NOT NULL,
    entry_id    BIGINT
);
INSERT INTO events_by_id (id, business_id, seq, type, created_at, data, entry_id)
SELECT id, business_id, seq, type, created_at, data, entry_id FROM events;
DROP TABLE events;
ALTER TABLE events_by_id RENAME TO events;
CREATE UNIQUE INDEX events_seq ON events (business_id, seq) WHERE seq IS NOT NULL;
CREATE INDEX events_pending ON events (business_id, id) WHERE seq IS NULL;
