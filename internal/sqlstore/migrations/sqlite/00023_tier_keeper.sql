-- +goose Up
-- What a tier program does when a calendar period ends, and how far that
-- has been done.
--
-- downgrade_policy: 'recompute' (the level is what the new period
-- reaches, with base_previous_period what the period just ended reached
-- too), 'keep' (a level held when a period ends is kept through the next)
-- or 'one_down' (it is kept one level lower).
-- rolled_to: the start of the period the program's customers were last
-- taken into (the scheduler's "period end" runs up to now from there);
-- roll_after: while a period end is under way, the last customer id done.
ALTER TABLE tiers ADD COLUMN downgrade_policy TEXT NOT NULL DEFAULT 'recompute';
ALTER TABLE tiers ADD COLUMN rolled_to DATETIME;
ALTER TABLE tiers ADD COLUMN roll_after TEXT NOT NULL DEFAULT '';

-- Per customer and program: the level last announced in a tier.changed
-- event (level_id NULL: none; no row: the level a new customer holds),
-- and the level a downgrade policy keeps through the period that starts
-- at floor_from (floor_level_id NULL: none).
CREATE TABLE customer_tiers (
    business_id    TEXT NOT NULL REFERENCES businesses (id),
    customer_id    TEXT NOT NULL,
    tier_id        BIGINT NOT NULL REFERENCES tiers (id),
    level_id       BIGINT,
    floor_level_id BIGINT,
    floor_from     DATETIME,
    updated_at     DATETIME NOT NULL,
    PRIMARY KEY (business_id, tier_id, customer_id)
);

-- +goose Down
DROP TABLE customer_tiers;
ALTER TABLE tiers DROP COLUMN roll_after;
ALTER TABLE tiers DROP COLUMN rolled_to;
ALTER TABLE tiers DROP COLUMN downgrade_policy;
