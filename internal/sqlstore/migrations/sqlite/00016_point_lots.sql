-- +goose Up
-- The life of a point. A business's policy: points expire a number of
-- days or months after they are earned, at the end of that day or month
-- in the business's time zone (businesses.time_zone), or never
-- (points_expire_unit ''); a reward's points are pending for
-- pending_days before they can be spent.
ALTER TABLE business_rules ADD COLUMN points_expire_unit TEXT NOT NULL DEFAULT '' CHECK (points_expire_unit IN ('', 'days', 'months'));
ALTER TABLE business_rules ADD COLUMN points_expire_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE business_rules ADD COLUMN pending_days INTEGER NOT NULL DEFAULT 0;
-- Days before a lot expires that its customer is told (0: never).
ALTER TABLE business_rules ADD COLUMN expiry_notice_days INTEGER NOT NULL DEFAULT 0;

-- A sandbox business runs on a clock of its own, ahead of the real one by
-- clock_offset_seconds.
ALTER TABLE businesses ADD COLUMN sandbox BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE businesses ADD COLUMN clock_offset_seconds BIGINT NOT NULL DEFAULT 0;

-- points stays the active, usable balance; pending_points are earned but
-- not usable yet; expired_points counts, for ever, what expired.
ALTER TABLE customers ADD COLUMN pending_points BIGINT NOT NULL DEFAULT 0 CHECK (pending_points >= 0);
ALTER TABLE customers ADD COLUMN expired_points BIGINT NOT NULL DEFAULT 0;
-- Whether the customer wants to be told before points expire.
ALTER TABLE customers ADD COLUMN expiry_notices BOOLEAN NOT NULL DEFAULT TRUE;

-- An entry's share of pending points (points still counts every point it
-- moved), and, for an activation or an expiry, the lot it is about: one of
-- each per lot, whatever runs the scheduler.
ALTER TABLE transactions ADD COLUMN pending_points BIGINT NOT NULL DEFAULT 0;
ALTER TABLE transactions ADD COLUMN lot_id BIGINT;
CREATE UNIQUE INDEX transactions_lot_event ON transactions (lot_id, type_code) WHERE lot_id IS NOT NULL;

-- A lot is the points of one earning entry (entry_id; NULL for the
-- opening lot of a balance kept before lots existed): what it earned,
-- what remains, when it activates and when it expires (NULL: never).
-- Lots are kept beside the ledger and change; the ledger never does.
CREATE TABLE point_lots (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  TEXT NOT NULL,
    customer_id  TEXT NOT NULL,
    entry_id     BIGINT REFERENCES transactions (id),
    earned       BIGINT NOT NULL,
    remaining    BIGINT NOT NULL CHECK (remaining >= 0),
    activates_at DATETIME NOT NULL,
    expires_at   DATETIME,
    notify_at    DATETIME,
    state        TEXT NOT NULL CHECK (state IN ('pending', 'active', 'spent', 'expired', 'cancelled')),
    FOREIGN KEY (business_id, customer_id) REFERENCES customers (business_id, user_id)
);
CREATE INDEX point_lots_customer ON point_lots (business_id, customer_id, state, expires_at);
CREATE INDEX point_lots_entry ON point_lots (entry_id) WHERE entry_id IS NOT NULL;
CREATE INDEX point_lots_activation ON point_lots (activates_at, business_id, customer_id) WHERE state = 'pending';
CREATE INDEX point_lots_expiry ON point_lots (expires_at, business_id, customer_id) WHERE state = 'active' AND expires_at IS NOT NULL;
-- notify_at: when the customer is to be told the lot expires soon; NULL
-- once told (or never to be).
CREATE INDEX point_lots_notice ON point_lots (notify_at, business_id, customer_id) WHERE notify_at IS NOT NULL;

-- The expiring-soon messages sent: one per customer and expiry.
CREATE TABLE point_expiry_notices (
    business_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    expires_at  DATETIME NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (business_id, customer_id, expires_at)
);

-- Which lots a spending entry took its points from, so that cancelling
-- it gives them back to the same lots.
CREATE TABLE point_lot_uses (
    entry_id BIGINT NOT NULL REFERENCES transactions (id),
    lot_id   BIGINT NOT NULL REFERENCES point_lots (id),
    points   BIGINT NOT NULL,
    PRIMARY KEY (entry_id, lot_id)
);

-- A job one instance at a time runs (the points scheduler): the instance
-- holding the lease until lease_until.
CREATE TABLE job_leases (
    name        TEXT PRIMARY KEY NOT NULL,
    holder      TEXT NOT NULL,
    lease_until DATETIME NOT NULL
);

-- Every balance kept so far becomes one lot that never expires, so that
-- the active lots add up to the balance from the start.
INSERT INTO point_lots (business_id, customer_id, entry_id, earned, remaining, activates_at, expires_at, state)
SELECT business_id, user_id, NULL, points, points, created_at, NULL, 'active' FROM customers WHERE points > 0;

-- +goose Down
DROP TABLE job_leases;
DROP TABLE point_expiry_notices;
DROP TABLE point_lot_uses;
DROP TABLE point_lots;
DROP INDEX transactions_lot_event;
ALTER TABLE transactions DROP COLUMN lot_id;
ALTER TABLE transactions DROP COLUMN pending_points;
ALTER TABLE customers DROP COLUMN expiry_notices;
ALTER TABLE customers DROP COLUMN expired_points;
ALTER TABLE customers DROP COLUMN pending_points;
ALTER TABLE businesses DROP COLUMN clock_offset_seconds;
ALTER TABLE businesses DROP COLUMN sandbox;
ALTER TABLE business_rules DROP COLUMN expiry_notice_days;
ALTER TABLE business_rules DROP COLUMN pending_days;
ALTER TABLE business_rules DROP COLUMN points_expire_count;
ALTER TABLE business_rules DROP COLUMN points_expire_unit;
