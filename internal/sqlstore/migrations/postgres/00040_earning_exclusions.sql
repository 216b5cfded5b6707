-- +goose Up
-- What no earning rule earns on, for the whole program (PATCH /rules
-- earning.exclude), as JSON written from loyalty.EarningExclusions; NULL
-- is the defaults (tax, shipping, discounts and gift cards excluded).
ALTER TABLE business_rules ADD COLUMN earning_exclude TEXT;

-- +goose Down
ALTER TABLE business_rules DROP COLUMN earning_exclude;
