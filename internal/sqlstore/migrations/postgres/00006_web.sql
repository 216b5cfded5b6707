-- +goose Up
-- The web portals and the authorization-code flow: developer and support
-- accounts, browser sessions (kept here, hashed, so every instance sees
-- them), authorization codes, and the apps each business let in.
CREATE TABLE developers (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE support_staff (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL
);

ALTER TABLE apps ADD COLUMN developer_id TEXT REFERENCES developers (id);
CREATE INDEX apps_developer ON apps (developer_id, created_at);
CREATE INDEX apps_status ON apps (status, created_at);

CREATE TABLE web_sessions (
    id_hash     BYTEA PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('developer', 'support', 'owner')),
    subject_id  TEXT NOT NULL,
    business_id TEXT,
    email       TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

CREATE TABLE authorization_codes (
    id             TEXT PRIMARY KEY,
    code_hash      BYTEA NOT NULL UNIQUE,
    app_id         TEXT NOT NULL REFERENCES apps (id),
    business_id    TEXT NOT NULL REFERENCES businesses (id),
    owner_id       TEXT NOT NULL REFERENCES owners (id),
    redirect_uri   TEXT NOT NULL,
    scope          TEXT NOT NULL,
    code_challenge TEXT NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL,
    expires_at     TIMESTAMPTZ NOT NULL,
    used_at        TIMESTAMPTZ
);
CREATE INDEX authorization_codes_app ON authorization_codes (app_id, business_id);
CREATE INDEX authorization_codes_expires ON authorization_codes (expires_at);

CREATE TABLE app_connections (
    app_id      TEXT NOT NULL REFERENCES apps (id),
    business_id TEXT NOT NULL REFERENCES businesses (id),
    owner_id    TEXT NOT NULL REFERENCES owners (id),
    scope       TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    revoked_at  TIMESTAMPTZ,
    PRIMARY KEY (app_id, business_id)
);
CREATE INDEX app_connections_business ON app_connections (business_id);
CREATE INDEX oauth_tokens_business ON oauth_tokens (business_id);
CREATE INDEX oauth_tokens_tenant ON oauth_tokens (tenant_id);

-- +goose Down
DROP INDEX oauth_tokens_tenant;
DROP INDEX oauth_tokens_business;
DROP TABLE app_connections;
DROP TABLE authorization_codes;
DROP TABLE web_sessions;
DROP INDEX apps_status;
DROP INDEX apps_developer;
ALTER TABLE apps DROP COLUMN developer_id;
DROP TABLE support_staff;
DROP TABLE developers;
