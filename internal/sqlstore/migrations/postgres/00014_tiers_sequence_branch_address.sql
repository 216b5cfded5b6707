-- +goose Up
-- tiers_sequence: the criteria a tier program counts, comma-separated, as
-- the reference platform codes them: 1 spend, 2 points, 3 visits. A
-- program stored before it counted every criterion one of its levels sets,
-- and keeps counting those; one whose levels set none counts all three.
ALTER TABLE tiers ADD COLUMN tiers_sequence TEXT NOT NULL DEFAULT '';
UPDATE tiers SET tiers_sequence = rtrim(
    CASE WHEN EXISTS (SELECT 1 FROM tier_levels l WHERE l.tier_id = tiers.id AND l.reach_spend > 0) THEN '1,' ELSE '' END ||
    CASE WHEN EXISTS (SELECT 1 FROM tier_levels l WHERE l.tier_id = tiers.id AND l.reach_points > 0) THEN '2,' ELSE '' END ||
    CASE WHEN EXISTS (SELECT 1 FROM tier_levels l WHERE l.tier_id = tiers.id AND l.reach_visits > 0) THEN '3,' ELSE '' END,
    ',');
UPDATE tiers SET tiers_sequence = '1,2,3' WHERE tiers_sequence = '';

-- A branch's address, in the reference platform's shape: a formatted
-- street line, city, region, country, and coordinates.
ALTER TABLE branches ADD COLUMN address_formatted TEXT NOT NULL DEFAULT '';
ALTER TABLE branches ADD COLUMN address_city TEXT NOT NULL DEFAULT '';
ALTER TABLE branches ADD COLUMN address_region TEXT NOT NULL DEFAULT '';
ALTER TABLE branches ADD COLUMN address_country TEXT NOT NULL DEFAULT '';
ALTER TABLE branches ADD COLUMN address_lat DOUBLE PRECISION;
ALTER TABLE branches ADD COLUMN address_long DOUBLE PRECISION;

-- +goose Down
ALTER TABLE branches DROP COLUMN address_long;
ALTER TABLE branches DROP COLUMN address_lat;
ALTER TABLE branches DROP COLUMN address_country;
ALTER TABLE branches DROP COLUMN address_region;
ALTER TABLE branches DROP COLUMN address_city;
ALTER TABLE branches DROP COLUMN address_formatted;
ALTER TABLE tiers DROP COLUMN tiers_sequence;
