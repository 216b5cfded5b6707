-- +goose Up
-- The reference's daily, weekly and day-and-time offers: the weekdays
-- ("1,5": Monday and Friday) and hours ("09:00", local time) of a
-- day-and-time offer, and the period of each offer use ('' once ever, the
-- business's local day or week of a daily or weekly offer, as the domain
-- names it), so that the key allows one use per customer per period.
ALTER TABLE offers ADD COLUMN freq_days TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN peak_from TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN peak_to TEXT NOT NULL DEFAULT '';
ALTER TABLE offer_uses ADD COLUMN period TEXT NOT NULL DEFAULT '';
ALTER TABLE offer_uses DROP CONSTRAINT offer_uses_pkey;
ALTER TABLE offer_uses ADD PRIMARY KEY (offer_id, customer_id, period);

-- +goose Down
-- The offers of the three frequencies become offers without a limit.
DELETE FROM offer_uses WHERE period <> '';
ALTER TABLE offer_uses DROP CONSTRAINT offer_uses_pkey;
ALTER TABLE offer_uses ADD PRIMARY KEY (offer_id, customer_id);
ALTER TABLE offer_uses DROP COLUMN period;
UPDATE offers SET frequency = 0 WHERE frequency IN (1, 2, 3);
ALTER TABLE offers DROP COLUMN peak_to;
ALTER TABLE offers DROP COLUMN peak_from;
ALTER TABLE offers DROP COLUMN freq_days;
