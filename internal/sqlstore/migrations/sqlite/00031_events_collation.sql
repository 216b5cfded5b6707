-- +goose Up
-- Nothing on SQLite, whose text compares byte by byte already (BINARY);
-- PostgreSQL's 00031 gives its event log's keys the same collation.
SELECT 1;

-- +goose Down
SELECT 1;
