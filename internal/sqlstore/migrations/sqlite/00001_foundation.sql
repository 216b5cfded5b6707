-- +goose Up
CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

CREATE TABLE coalitions (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at DATETIME NOT NULL
);

CREATE TABLE businesses (
    id           TEXT PRIMARY KEY,
    coalition_id TEXT REFERENCES coalitions (id),
    name         TEXT NOT NULL,
    loyalty_type TEXT NOT NULL CHECK (loyalty_type IN ('per_spend', 'per_visit')),
    about        TEXT NOT NULL DEFAULT '',
    logo         TEXT NOT NULL DEFAULT '',
    cover        TEXT NOT NULL DEFAULT '',
    country_code TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);
CREATE INDEX businesses_coalition ON businesses (coalition_id);

CREATE TABLE application_keys (
    key          TEXT PRIMARY KEY,
    business_id  TEXT REFERENCES businesses (id),
    coalition_id TEXT REFERENCES coalitions (id),
    created_at   DATETIME NOT NULL,
    revoked_at   DATETIME,
    CHECK ((business_id IS NULL) <> (coalition_id IS NULL))
);

CREATE TABLE branches (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    name        TEXT NOT NULL,
    web_site    TEXT NOT NULL DEFAULT '',
    is_main     BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  DATETIME NOT NULL
);
CREATE INDEX branches_business ON branches (business_id, created_at);

CREATE TABLE owners (
    id            TEXT PRIMARY KEY,
    business_id   TEXT NOT NULL REFERENCES businesses (id),
    email         TEXT NOT NULL UNIQUE,
    username      TEXT NOT NULL DEFAULT '',
    first_name    TEXT NOT NULL DEFAULT '',
    last_name     TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  DATETIME,
    created_at    DATETIME NOT NULL
);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT UNIQUE,
    phone         TEXT UNIQUE,
    country_code  TEXT NOT NULL DEFAULT '',
    first_name    TEXT NOT NULL DEFAULT '',
    last_name     TEXT NOT NULL DEFAULT '',
    birth_date    TEXT NOT NULL DEFAULT '',
    language      TEXT NOT NULL DEFAULT '',
    gender        TEXT NOT NULL DEFAULT '',
    profile_photo TEXT NOT NULL DEFAULT '',
    pin_hash      TEXT,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  DATETIME,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL,
    CHECK (email IS NOT NULL OR phone IS NOT NULL)
);

CREATE TABLE customers (
    business_id          TEXT NOT NULL REFERENCES businesses (id),
    user_id              TEXT NOT NULL REFERENCES users (id),
    enabled              BOOLEAN NOT NULL DEFAULT TRUE,
    points               BIGINT NOT NULL DEFAULT 0 CHECK (points >= 0),
    giftcard             BIGINT NOT NULL DEFAULT 0 CHECK (giftcard >= 0),
    street               TEXT NOT NULL DEFAULT '',
    city                 TEXT NOT NULL DEFAULT '',
    region               TEXT NOT NULL DEFAULT '',
    country              TEXT NOT NULL DEFAULT '',
    address_country_code TEXT NOT NULL DEFAULT '',
    zip_code             TEXT NOT NULL DEFAULT '',
    lat                  REAL,
    long                 REAL,
    created_at           DATETIME NOT NULL,
    updated_at           DATETIME NOT NULL,
    deleted_at           DATETIME,
    PRIMARY KEY (business_id, user_id)
);
CREATE INDEX customers_created ON customers (business_id, created_at, user_id);
CREATE INDEX customers_updated ON customers (business_id, updated_at);
CREATE INDEX customers_user ON customers (user_id);

CREATE TABLE tiers (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id          TEXT NOT NULL REFERENCES businesses (id),
    tiers_relation       INTEGER NOT NULL DEFAULT 0,
    reset_type           INTEGER NOT NULL DEFAULT 0,
    reset_period_month   INTEGER NOT NULL DEFAULT 12,
    base_previous_period INTEGER NOT NULL DEFAULT 0,
    enabled              BOOLEAN NOT NULL DEFAULT TRUE,
    created_at           DATETIME NOT NULL,
    updated_at           DATETIME NOT NULL
);
CREATE INDEX tiers_business ON tiers (business_id);

CREATE TABLE tier_levels (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    tier_id      BIGINT NOT NULL REFERENCES tiers (id),
    name         TEXT NOT NULL,
    reach_spend  BIGINT NOT NULL DEFAULT 0,
    reach_visits BIGINT NOT NULL DEFAULT 0,
    reach_points BIGINT NOT NULL DEFAULT 0,
    position     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tier_levels_tier ON tier_levels (tier_id, position);

CREATE TABLE referral_programs (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id           TEXT NOT NULL REFERENCES businesses (id),
    rule_name             TEXT NOT NULL,
    cond_min_amount       BIGINT NOT NULL DEFAULT 0,
    referee_earns         BIGINT NOT NULL DEFAULT 0,
    referer_earns         BIGINT NOT NULL DEFAULT 0,
    expires_in            BIGINT NOT NULL DEFAULT 30,
    enabled               BOOLEAN NOT NULL DEFAULT TRUE,
    link_referral_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at            DATETIME NOT NULL,
    updated_at            DATETIME NOT NULL
);
CREATE INDEX referral_programs_business ON referral_programs (business_id);

CREATE TABLE referrals (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id         TEXT NOT NULL REFERENCES businesses (id),
    referral_program_id BIGINT NOT NULL REFERENCES referral_programs (id),
    referrer_id         TEXT NOT NULL REFERENCES users (id),
    referee_id          TEXT NOT NULL REFERENCES users (id),
    created_at          DATETIME NOT NULL,
    paid_at             DATETIME,
    UNIQUE (business_id, referee_id)
);

CREATE TABLE apps (
    id           TEXT PRIMARY KEY,
    client_id    TEXT NOT NULL UNIQUE,
    secret_hash  BLOB NOT NULL,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    redirect_uri TEXT NOT NULL DEFAULT '',
    grant_type   TEXT NOT NULL CHECK (grant_type IN ('password', 'authorization_code')),
    api          TEXT NOT NULL CHECK (api IN ('business', 'user')),
    status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'suspended')),
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);

CREATE TABLE oauth_tokens (
    id                 TEXT PRIMARY KEY,
    chain_id           TEXT NOT NULL,
    app_id             TEXT NOT NULL REFERENCES apps (id),
    tenant_id          TEXT NOT NULL,
    business_id        TEXT,
    subject_kind       TEXT NOT NULL CHECK (subject_kind IN ('owner', 'user')),
    subject_id         TEXT NOT NULL,
    scope              TEXT NOT NULL,
    access_hash        BLOB NOT NULL UNIQUE,
    refresh_hash       BLOB NOT NULL UNIQUE,
    access_expires_at  DATETIME NOT NULL,
    refresh_expires_at DATETIME NOT NULL,
    refresh_used_at    DATETIME,
    revoked_at         DATETIME,
    created_at         DATETIME NOT NULL
);
CREATE INDEX oauth_tokens_chain ON oauth_tokens (chain_id);
CREATE INDEX oauth_tokens_app ON oauth_tokens (app_id, tenant_id);

-- +goose Down
DROP TABLE oauth_tokens;
DROP TABLE apps;
DROP TABLE referrals;
DROP TABLE referral_programs;
DROP TABLE tier_levels;
DROP TABLE tiers;
DROP TABLE customers;
DROP TABLE users;
DROP TABLE owners;
DROP TABLE branches;
DROP TABLE application_keys;
DROP TABLE businesses;
DROP TABLE coalitions;
DROP TABLE server_secrets;
