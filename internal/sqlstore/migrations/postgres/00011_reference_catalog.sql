-- +goose Up
-- The reference platform's offer and reward fields (issue 11): each one is
-- either kept here and honoured by the rules, or refused by the API.

-- Offers: the purchase range a points offer applies to (max NULL: no
-- maximum), how often a customer may use it (0: no limit, 4: once), how
-- many days an issued coupon lives (0: as long as the offer), the
-- business's own reference, and the offer's texts per language (JSON).
ALTER TABLE offers ADD COLUMN min_purchase BIGINT NOT NULL DEFAULT 0;
ALTER TABLE offers ADD COLUMN max_purchase BIGINT;
ALTER TABLE offers ADD COLUMN frequency INTEGER NOT NULL DEFAULT 0;
ALTER TABLE offers ADD COLUMN coupon_expires_in BIGINT NOT NULL DEFAULT 0;
ALTER TABLE offers ADD COLUMN external_id TEXT NOT NULL DEFAULT '';
ALTER TABLE offers ADD COLUMN languages TEXT NOT NULL DEFAULT '[]';

-- The earning rules look up the offers of a reward's branch: by branch
-- first, whatever plan the statistics lead to.
CREATE INDEX offer_branches_branch ON offer_branches (branch_id, offer_id);

-- One row per use of an offer limited to one use per customer, written in
-- the transaction of the entry that used it; the key makes a second use
-- impossible even under concurrent rewards.
CREATE TABLE offer_uses (
    offer_id    BIGINT NOT NULL REFERENCES offers (id),
    customer_id TEXT NOT NULL,
    used_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (offer_id, customer_id)
);

-- Rewards: the reference's reward type (15 free product, 16 cashback, 18
-- percentage; NULL for rewards made without one) with its value, whether a
-- cashback turns into gift-card balance, who may redeem it (audience 0
-- everyone, 1 its targets, 2 customers of its tier levels), when it is
-- published (NULL: when created), the business's own reference and its
-- texts per language (JSON).
ALTER TABLE rewards ADD COLUMN type_id INTEGER;
ALTER TABLE rewards ADD COLUMN amount BIGINT NOT NULL DEFAULT 0;
ALTER TABLE rewards ADD COLUMN real_value BIGINT NOT NULL DEFAULT 0;
ALTER TABLE rewards ADD COLUMN discount_value BIGINT NOT NULL DEFAULT 0;
ALTER TABLE rewards ADD COLUMN redeem_for_gift_card BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE rewards ADD COLUMN audience INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rewards ADD COLUMN starts_at TIMESTAMPTZ;
ALTER TABLE rewards ADD COLUMN external_id TEXT NOT NULL DEFAULT '';
ALTER TABLE rewards ADD COLUMN languages TEXT NOT NULL DEFAULT '[]';

CREATE TABLE reward_branches (
    reward_id BIGINT NOT NULL REFERENCES rewards (id),
    branch_id TEXT NOT NULL REFERENCES branches (id),
    PRIMARY KEY (reward_id, branch_id)
);

CREATE TABLE reward_targets (
    reward_id   BIGINT NOT NULL REFERENCES rewards (id),
    customer_id TEXT NOT NULL REFERENCES users (id),
    PRIMARY KEY (reward_id, customer_id)
);

-- Tier levels may be replaced by a tier update, so no foreign key: a
-- reward naming a removed level is simply held by no one.
CREATE TABLE reward_tiers (
    reward_id     BIGINT NOT NULL REFERENCES rewards (id),
    tier_level_id BIGINT NOT NULL,
    PRIMARY KEY (reward_id, tier_level_id)
);

-- +goose Down
DROP TABLE reward_tiers;
DROP TABLE reward_targets;
DROP TABLE reward_branches;
ALTER TABLE rewards DROP COLUMN languages;
ALTER TABLE rewards DROP COLUMN external_id;
ALTER TABLE rewards DROP COLUMN starts_at;
ALTER TABLE rewards DROP COLUMN audience;
ALTER TABLE rewards DROP COLUMN redeem_for_gift_card;
ALTER TABLE rewards DROP COLUMN discount_value;
ALTER TABLE rewards DROP COLUMN real_value;
ALTER TABLE rewards DROP COLUMN amount;
ALTER TABLE rewards DROP COLUMN type_id;
DROP TABLE offer_uses;
DROP INDEX offer_branches_branch;
ALTER TABLE offers DROP COLUMN languages;
ALTER TABLE offers DROP COLUMN external_id;
ALTER TABLE offers DROP COLUMN coupon_expires_in;
ALTER TABLE offers DROP COLUMN frequency;
ALTER TABLE offers DROP COLUMN max_purchase;
ALTER TABLE offers DROP COLUMN min_purchase;
