-- +goose Up
CREATE TABLE business_rules (
    business_id             TEXT PRIMARY KEY REFERENCES businesses (id),
    reward_ratio            BIGINT NOT NULL DEFAULT 1,
    reward_milestone_amount BIGINT NOT NULL DEFAULT 100,
    round_up_points         BOOLEAN NOT NULL DEFAULT FALSE,
    welcome_points          BIGINT NOT NULL DEFAULT 0,
    points_per_visit        BIGINT NOT NULL DEFAULT 1,
    updated_at              DATETIME NOT NULL
);

ALTER TABLE customers ADD COLUMN tx_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE customers ADD COLUMN referral_pending BOOLEAN NOT NULL DEFAULT FALSE;

CREATE TABLE offers (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id     TEXT NOT NULL REFERENCES businesses (id),
    type_id         INTEGER NOT NULL,
    title           TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    points          BIGINT NOT NULL DEFAULT 0,
    multip_factor   BIGINT NOT NULL DEFAULT 0,
    discount_value  BIGINT NOT NULL DEFAULT 0,
    real_value      BIGINT NOT NULL DEFAULT 0,
    coupon_kind     INTEGER NOT NULL DEFAULT 74,
    targeted        BOOLEAN NOT NULL DEFAULT FALSE,
    images          TEXT NOT NULL DEFAULT '[]',
    enabled         BOOLEAN NOT NULL DEFAULT TRUE,
    starts_at       DATETIME NOT NULL,
    expires_at      DATETIME,
    deleted_at      DATETIME,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);
CREATE INDEX offers_business ON offers (business_id, type_id);

CREATE TABLE offer_branches (
    offer_id  BIGINT NOT NULL REFERENCES offers (id),
    branch_id TEXT NOT NULL REFERENCES branches (id),
    PRIMARY KEY (offer_id, branch_id)
);

CREATE TABLE offer_targets (
    offer_id    BIGINT NOT NULL REFERENCES offers (id),
    customer_id TEXT NOT NULL REFERENCES users (id),
    PRIMARY KEY (offer_id, customer_id)
);
CREATE INDEX offer_targets_customer ON offer_targets (customer_id);

CREATE TABLE coupons (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id    TEXT NOT NULL REFERENCES businesses (id),
    offer_id       BIGINT NOT NULL REFERENCES offers (id),
    customer_id    TEXT NOT NULL REFERENCES users (id),
    qrcode         TEXT NOT NULL UNIQUE,
    coupon_type_id INTEGER NOT NULL CHECK (coupon_type_id IN (74, 75, 91, 92)),
    locked         BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at     DATETIME,
    claimed_at     DATETIME,
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL
);
CREATE INDEX coupons_customer ON coupons (business_id, customer_id, id);

CREATE TABLE rewards (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id    TEXT NOT NULL REFERENCES businesses (id),
    kind           TEXT NOT NULL CHECK (kind IN ('catalog_item', 'custom_reward')),
    title          TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    points         BIGINT NOT NULL,
    partner_reward BOOLEAN NOT NULL DEFAULT FALSE,
    images         TEXT NOT NULL DEFAULT '[]',
    enabled        BOOLEAN NOT NULL DEFAULT TRUE,
    expires_at     DATETIME,
    deleted_at     DATETIME,
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL
);
CREATE INDEX rewards_business ON rewards (business_id, kind);

CREATE TABLE giftcards (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id    TEXT NOT NULL REFERENCES businesses (id),
    title          TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    points         BIGINT NOT NULL DEFAULT 0,
    discount_value BIGINT NOT NULL,
    real_value     BIGINT NOT NULL,
    multip_factor  BIGINT NOT NULL DEFAULT 0,
    images         TEXT NOT NULL DEFAULT '[]',
    enabled        BOOLEAN NOT NULL DEFAULT TRUE,
    expires_at     DATETIME,
    deleted_at     DATETIME,
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL
);
CREATE INDEX giftcards_business ON giftcards (business_id);

CREATE TABLE giftcard_branches (
    giftcard_id BIGINT NOT NULL REFERENCES giftcards (id),
    branch_id   TEXT NOT NULL REFERENCES branches (id),
    PRIMARY KEY (giftcard_id, branch_id)
);

-- The ledger: one row per balance change, never updated or deleted. A
-- cancellation is a new row that reverses another (reverses_id), once.
CREATE TABLE transactions (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id       TEXT NOT NULL REFERENCES businesses (id),
    customer_id       TEXT NOT NULL REFERENCES users (id),
    branch_id         TEXT REFERENCES branches (id),
    intent            TEXT NOT NULL,
    type_code         INTEGER NOT NULL,
    name              TEXT NOT NULL,
    amount            BIGINT NOT NULL DEFAULT 0,
    points            BIGINT NOT NULL DEFAULT 0,
    giftcard          BIGINT NOT NULL DEFAULT 0,
    visits            BIGINT NOT NULL DEFAULT 0,
    tier_amount       BIGINT NOT NULL DEFAULT 0,
    tier_points       BIGINT NOT NULL DEFAULT 0,
    offer_id          BIGINT REFERENCES offers (id),
    coupon_id         BIGINT REFERENCES coupons (id),
    giftcard_id       BIGINT REFERENCES giftcards (id),
    reverses_id       BIGINT UNIQUE REFERENCES transactions (id),
    external_order_id TEXT NOT NULL DEFAULT '',
    custom_field_1    TEXT NOT NULL DEFAULT '',
    custom_field_2    TEXT NOT NULL DEFAULT '',
    custom_field_3    TEXT NOT NULL DEFAULT '',
    custom_field_4    TEXT NOT NULL DEFAULT '',
    custom_field_5    TEXT NOT NULL DEFAULT '',
    has_details       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at        DATETIME NOT NULL
);
CREATE INDEX transactions_customer ON transactions (business_id, customer_id, id);
CREATE INDEX transactions_created ON transactions (business_id, created_at, id);
CREATE INDEX transactions_order ON transactions (business_id, external_order_id);

CREATE TABLE transaction_items (
    transaction_id BIGINT NOT NULL REFERENCES transactions (id),
    reward_id      BIGINT NOT NULL REFERENCES rewards (id),
    quantity       BIGINT NOT NULL,
    points         BIGINT NOT NULL,
    PRIMARY KEY (transaction_id, reward_id)
);

CREATE TABLE idempotency_keys (
    business_id  TEXT NOT NULL REFERENCES businesses (id),
    key          TEXT NOT NULL,
    request_hash BLOB NOT NULL,
    status       INTEGER NOT NULL,
    response     TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    PRIMARY KEY (business_id, key)
);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE transaction_items;
DROP TABLE transactions;
DROP TABLE giftcard_branches;
DROP TABLE giftcards;
DROP TABLE rewards;
DROP TABLE coupons;
DROP TABLE offer_targets;
DROP TABLE offer_branches;
DROP TABLE offers;
ALTER TABLE customers DROP COLUMN referral_pending;
ALTER TABLE customers DROP COLUMN tx_count;
DROP TABLE business_rules;
