-- +goose Up
-- PostgreSQL's reward batch numbers the events written one by one before
-- its own (events_number_pending). SQLite numbers every event as it is
-- written (event.go): nothing to add.
SELECT 1;

-- +goose Down
SELECT 1;
