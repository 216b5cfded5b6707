-- +goose Up
-- The messages a worker claimed, by when its lease runs out: the outbox's
-- poll finds those whose worker died without reading every message (see
-- sqlstore.DueMessages).
CREATE INDEX outbox_leased ON outbox (lease_until) WHERE status = 'sending';

-- +goose Down
DROP INDEX outbox_leased;
