-- +goose Up
-- The reference's daily, weekly and day-and-time offers: the weekdays
-- ("1,5": Monday and Friday) and hours ("09:00", local time) of a
-- day-and-time offer, and the period of each offer use ('' once ever, the
-- business's local day or week of a daily or weekly offer, as the domain
-- names it), so that the key allows one use per customer per period.
-- SQLite cannot change a primary key: the table is made again.
ALTER TABLE offers ADD COLUMN freq_days TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN peak_from TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN peak_to TEXT NOT NULL DEFAULT '';
CREATE TABLE offer_uses_new (
    offer_id    BIGINT NOT NULL REFERENCES offers (id),
    customer_id TEXT NOT NULL,
    used_at     DATETIME NOT NULL,
    period      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (offer_id, customer_id, period)
);
INSERT INTO offer_uses_new (offer_id, customer_id, used_at, period) SELECT offer_id, customer_id, used_at, '' FROM offer_uses;
DROP TABLE offer_uses;
ALTER TABLE offer_uses_new RENAME TO offer_uses;

-- +goose Down
-- The offers of the three frequencies become offers without a limit.
CREATE TABLE offer_uses_old (
    offer_id    BIGINT NOT NULL REFERENCES offers (id),
    customer_id TEXT NOT NULL,
    used_at     DATETIME NOT NULL,
    PRIMARY KEY (offer_id, customer_id)
);
INSERT INTO offer_uses_old (offer_id, customer_id, used_at) SELECT offer_id, customer_id, used_at FROM offer_uses WHERE period = '';
DROP TABLE offer_uses;
ALTER TABLE offer_uses_old RENAME TO offer_uses;
UPDATE offers SET frequency = 0 WHERE frequency IN (1, 2, 3);
ALTER TABLE offers DROP COLUMN peak_to;
ALTER TABLE offers DROP COLUMN peak_from;
ALTER TABLE offers DROP COLUMN freq_days;
