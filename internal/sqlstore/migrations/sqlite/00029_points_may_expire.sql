-- +goose Up
-- Whether any point of the business may carry an expiry: set for good once
-- its rules give points an expiry (points earned then keep it when the
-- rules change again). A customer's read (GET /customers/{id}) of a
-- business where it is false does not look for expiring lots, which on
-- PostgreSQL costs a third of the read's statement even when it finds
-- none. Token lookups read it with the Application Key, so a change ends
-- them as a change of the rules does.
ALTER TABLE businesses ADD COLUMN points_may_expire BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE businesses SET points_may_expire = TRUE
WHERE EXISTS (SELECT 1 FROM business_rules br WHERE br.business_id = businesses.id
        AND br.points_expire_unit <> '' AND br.points_expire_count > 0)
   OR EXISTS (SELECT 1 FROM point_lots l WHERE l.business_id = businesses.id AND l.expires_at IS NOT NULL);

-- +goose Down
ALTER TABLE businesses DROP COLUMN points_may_expire;
