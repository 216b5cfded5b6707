-- +goose Up
-- Frequent-buyer programs (/punch-cards): what stamps a card (qualifies,
-- JSON of loyalty.PunchQualifies), how many stamps fill it and the coupon
-- offer a full card issues.
CREATE TABLE punch_cards (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id     TEXT NOT NULL REFERENCES businesses (id),
    name            TEXT NOT NULL,
    stamps_required BIGINT NOT NULL,
    qualifies       TEXT NOT NULL DEFAULT '{}',
    reward_offer_id BIGINT NOT NULL REFERENCES offers (id),
    enabled         BOOLEAN NOT NULL,
    deleted_at      DATETIME,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);
CREATE INDEX punch_cards_business ON punch_cards (business_id, id);

-- Where each customer stands on a card: the stamps held (changed by one
-- upsert that concurrent stamps wait on) and the times it was full.
CREATE TABLE punch_progress (
    card_id     BIGINT NOT NULL REFERENCES punch_cards (id),
    customer_id TEXT NOT NULL,
    stamps      BIGINT NOT NULL,
    completed   BIGINT NOT NULL DEFAULT 0,
    updated_at  DATETIME NOT NULL,
    PRIMARY KEY (card_id, customer_id)
);

-- The stamps each entry gave, never changed.
CREATE TABLE punch_stamps (
    entry_id    BIGINT NOT NULL REFERENCES transactions (id),
    card_id     BIGINT NOT NULL REFERENCES punch_cards (id),
    customer_id TEXT NOT NULL,
    stamps      BIGINT NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (entry_id, card_id)
);

-- +goose Down
DROP TABLE punch_stamps;
DROP TABLE punch_progress;
DROP TABLE punch_cards;
