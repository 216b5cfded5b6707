-- +goose Up
-- A count of the committed changes that end cached token lookups (see
-- sqlstore.accessCache), bumped in each such change's transaction. On
-- SQLite it is how one process hears another's changes (an admin command
-- run beside the service): the service reads it every 100 ms. PostgreSQL
-- instances hear each other by LISTEN/NOTIFY instead and leave it at 0.
CREATE TABLE access_generation (
    id BIGINT PRIMARY KEY NOT NULL CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO access_generation (id, n) VALUES (1, 0);

-- +goose Down
DROP TABLE access_generation;
