-- +goose Up
-- SQLite keeps its baskets and their lines in their keys' b-trees here
-- (see its 00073); PostgreSQL's tables and keys stay as they are.
SELECT 1;

-- +goose Down
SELECT 1;
