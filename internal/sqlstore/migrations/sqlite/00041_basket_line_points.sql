-- +goose Up
-- What each line of a reward's basket earned of its points (the earning
-- engine shares every rule's points among the lines it covered), so that
-- a return of some of its units takes back exactly their share; on a
-- return's basket, what its units took back. A reward's lines written
-- before are 0: a return by item shares its points by the lines' totals.
ALTER TABLE basket_lines ADD COLUMN points BIGINT NOT NULL DEFAULT 0;

-- A return by item's basket names the reward it returns units of (a
-- reward may have several returns; its one cancellation is reverses_id).
ALTER TABLE baskets ADD COLUMN returns_id BIGINT REFERENCES transactions (id);
CREATE INDEX baskets_returns ON baskets (returns_id) WHERE returns_id IS NOT NULL;

-- +goose Down
DROP INDEX baskets_returns;
ALTER TABLE baskets DROP COLUMN returns_id;
ALTER TABLE basket_lines DROP COLUMN points;
