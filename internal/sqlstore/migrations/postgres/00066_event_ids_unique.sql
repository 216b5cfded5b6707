-- +goose NO TRANSACTION
-- +goose Up
-- An event's id is its public id: the webhook-id and the Nats-Msg-Id that
-- consumers de-duplicate on. 00032 dropped its key to save the reward
-- batch a b-tree insert, leaving uniqueness to the UUIDv7 the store
-- makes; the database enforces it again. Built CONCURRENTLY, so the
-- rewards of instances still running keep writing while it builds (it
-- waits for their older transactions, so without a lock timeout); if two
-- events ever shared an id the build fails, leaving an invalid index
-- that this migration drops before it tries again.
SET lock_timeout = 0;
DROP INDEX CONCURRENTLY IF EXISTS events_id;
CREATE UNIQUE INDEX CONCURRENTLY events_id ON events (id);
RESET lock_timeout;

-- +goose Down
DROP INDEX CONCURRENTLY IF EXISTS events_id;
