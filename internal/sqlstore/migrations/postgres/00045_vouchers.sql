-- +goose Up
-- A member's own redemption: the voucher the counter hands the reward
-- over for, once (handed_over_*), or whose points were given back
-- (returned_at, by the entry return_entry_id) when it expired or its
-- redemption was cancelled.
CREATE TABLE vouchers (
    id                 TEXT NOT NULL PRIMARY KEY,
    business_id        TEXT NOT NULL REFERENCES businesses (id),
    customer_id        TEXT NOT NULL REFERENCES users (id),
    entry_id           BIGINT NOT NULL UNIQUE,
    reward_id          BIGINT NOT NULL,
    quantity           BIGINT NOT NULL,
    points             BIGINT NOT NULL,
    code               TEXT NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    expires_at         TIMESTAMPTZ NOT NULL,
    handed_over_at     TIMESTAMPTZ,
    handed_over_by     TEXT,
    handed_over_branch TEXT,
    returned_at        TIMESTAMPTZ,
    return_entry_id    BIGINT
);
CREATE UNIQUE INDEX vouchers_code ON vouchers (business_id, code);
CREATE INDEX vouchers_customer ON vouchers (business_id, customer_id, created_at);
-- The scheduler's walk: vouchers still waiting, in expiry order.
CREATE INDEX vouchers_due ON vouchers (expires_at) WHERE handed_over_at IS NULL AND returned_at IS NULL;

-- +goose Down
DROP TABLE vouchers;
