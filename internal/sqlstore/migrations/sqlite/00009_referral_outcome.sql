-- +goose Up
-- How a referral was settled: paid, expired (no qualifying purchase in
-- time) or forfeited (the program was disabled meanwhile). paid_at is the
-- time it was settled, whichever way; referrals settled before this column
-- existed keep an empty outcome.
ALTER TABLE referrals ADD COLUMN outcome TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE referrals DROP COLUMN outcome;
