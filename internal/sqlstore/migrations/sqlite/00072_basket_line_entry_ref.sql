-- +goose Up
-- PostgreSQL drops basket_lines' foreign key to the entry here (see its
-- 00072). SQLite takes no row locks for a foreign key, and dropping one
-- means rebuilding the table: it keeps it.
SELECT 1;

-- +goose Down
SELECT 1;
