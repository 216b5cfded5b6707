-- +goose Up
-- A campaign's third kind of gift: an earning rule that applies to the
-- recipients it reaches only, for gift_rule_days days from being reached
-- (the rule's own conditions name the campaign; its definition is JSON
-- and needs no column). Columns added without a rewrite: nullable, or
-- with a constant default.
ALTER TABLE campaigns ADD COLUMN gift_rule_id BIGINT;
ALTER TABLE campaigns ADD COLUMN gift_rule_days INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE campaigns DROP COLUMN gift_rule_days;
ALTER TABLE campaigns DROP COLUMN gift_rule_id;
