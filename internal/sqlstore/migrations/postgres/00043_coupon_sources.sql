-- +goose Up
-- The reward that issued a coupon (a coupon earning rule, or a punch card
-- it filled), and when a return or cancellation of that reward took the
-- unused coupon back. Nullable columns: no table rewrite.
ALTER TABLE coupons ADD COLUMN entry_id BIGINT;
ALTER TABLE coupons ADD COLUMN punch_card_id BIGINT;
ALTER TABLE coupons ADD COLUMN taken_back_at TIMESTAMPTZ;
CREATE INDEX coupons_entry ON coupons (entry_id) WHERE entry_id IS NOT NULL;

-- +goose Down
DROP INDEX coupons_entry;
ALTER TABLE coupons DROP COLUMN taken_back_at;
ALTER TABLE coupons DROP COLUMN punch_card_id;
ALTER TABLE coupons DROP COLUMN entry_id;
