-- +goose Up
-- Nothing on SQLite, whose event log has had no index of its ids since
-- 00030; PostgreSQL's 00032 drops its own.
SELECT 1;

-- +goose Down
SELECT 1;
