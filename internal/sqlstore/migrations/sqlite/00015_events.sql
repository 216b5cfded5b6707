-- +goose Up
-- The event log: every change an integrator cares about, written in the
-- transaction that makes it, as the API shows the resource (data, JSON).
--
-- Each business's events are numbered (seq) under its event_sequences
-- row: on PostgreSQL a transaction inserts its events with seq NULL,
-- touching no shared row, and a sequencer numbers the committed ones
-- afterwards; the reward batch and SQLite's single writer number theirs
-- as they write them (see sqlstore/event.go). A reader only reads
-- numbered events (seq IS NOT NULL): gap-free, and never a number behind
-- one it passed.
--
-- id is a UUIDv7 (time-ordered as text): the public id, the same in every
-- delivery (webhook-id, Nats-Msg-Id), and the prune key. No foreign key
-- to businesses: the log is written on the reward path, and an event
-- outlives nothing it names.
CREATE TABLE events (
    id          TEXT PRIMARY KEY NOT NULL,
    business_id TEXT NOT NULL,
    seq         BIGINT,
    type        TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    data        TEXT NOT NULL
);
-- Reading a business's feed after a sequence number.
CREATE UNIQUE INDEX events_seq ON events (business_id, seq) WHERE seq IS NOT NULL;
-- The sequencer's work: the events not numbered yet, in id order.
CREATE INDEX events_pending ON events (business_id, id) WHERE seq IS NULL;

-- The last sequence number given to each business's events.
CREATE TABLE event_sequences (
    business_id TEXT PRIMARY KEY NOT NULL,
    last_seq    BIGINT NOT NULL DEFAULT 0
);

-- How far each destination (a NATS stream, a webhook endpoint) has
-- delivered a business's events, and which worker holds it: a worker
-- claims a cursor for lease_until (the outbox's lease pattern), delivers
-- the events after last_seq and advances it while its claim holds.
CREATE TABLE event_cursors (
    destination TEXT NOT NULL,
    business_id TEXT NOT NULL,
    last_seq    BIGINT NOT NULL DEFAULT 0,
    claim       TEXT,
    lease_until DATETIME,
    PRIMARY KEY (destination, business_id)
);

-- +goose Down
DROP TABLE event_cursors;
DROP TABLE event_sequences;
DROP TABLE events;
