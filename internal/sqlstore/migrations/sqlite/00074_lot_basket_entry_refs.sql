-- +goose Up
-- PostgreSQL drops the lots' and the baskets' foreign keys to their entry
-- here (see its 00074). SQLite takes no row locks for a foreign key, and
-- dropping one means rebuilding the table: it keeps them.
SELECT 1;

-- +goose Down
SELECT 1;
