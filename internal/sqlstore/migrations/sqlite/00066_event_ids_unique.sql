-- +goose Up
-- An event's id is its public id: the webhook-id and the Nats-Msg-Id that
-- consumers de-duplicate on. The table of 00030 is keyed by business and
-- sequence number and left the id's uniqueness to the UUIDv7 the store
-- makes; the database enforces it again (see postgres/00066).
CREATE UNIQUE INDEX events_id ON events (id);

-- +goose Down
DROP INDEX events_id;
