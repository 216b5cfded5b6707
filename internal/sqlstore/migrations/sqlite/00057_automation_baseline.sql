-- +goose Up
-- Whether an automation whose trigger is a state (a tier level held, a
-- punch card's completions) has recorded the customers already in that
-- state when it was made, so that only what happens after fires it.
ALTER TABLE automations ADD COLUMN baselined BOOLEAN NOT NULL DEFAULT FALSE;
-- The tier level and the punch card a trigger names.
ALTER TABLE automations ADD COLUMN trigger_level_id INTEGER;
ALTER TABLE automations ADD COLUMN trigger_card_id INTEGER;

-- +goose Down
ALTER TABLE automations DROP COLUMN trigger_card_id;
ALTER TABLE automations DROP COLUMN trigger_level_id;
ALTER TABLE automations DROP COLUMN baselined;
