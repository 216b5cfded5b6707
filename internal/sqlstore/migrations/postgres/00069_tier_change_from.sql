-- +goose Up
-- What the tier keeper announced last, besides the level: the level it
-- came from and when, for the automations fired by a level lost
-- (loyalty.TriggerTierLost: each loss, keyed by its time). Nullable
-- columns without a default: no table rewrite, and the previous release,
-- which writes neither, leaves them as they were (a loss it announced is
-- not seen by those automations).
ALTER TABLE customer_tiers ADD COLUMN previous_level_id BIGINT;
ALTER TABLE customer_tiers ADD COLUMN changed_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE customer_tiers DROP COLUMN changed_at;
ALTER TABLE customer_tiers DROP COLUMN previous_level_id;
