-- +goose Up
-- The merchant console: staff who sign in for a business with a role,
-- single-use tokens for invitations and password resets (hashed, with an
-- expiry), the append-only audit log of console actions, and the
-- business's profile and branding.
CREATE TABLE staff (
    id            TEXT PRIMARY KEY NOT NULL,
    business_id   TEXT NOT NULL REFERENCES businesses (id),
    email         TEXT NOT NULL UNIQUE,
    role          TEXT NOT NULL CHECK (role IN ('manager', 'cashier')),
    password_hash TEXT NOT NULL DEFAULT '',
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  DATETIME,
    invited_by    TEXT NOT NULL DEFAULT '',
    created_at    DATETIME NOT NULL,
    joined_at     DATETIME
);
CREATE INDEX staff_business ON staff (business_id, created_at);

CREATE TABLE account_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash   BLOB NOT NULL UNIQUE,
    purpose      TEXT NOT NULL CHECK (purpose IN ('invite', 'reset')),
    account_kind TEXT NOT NULL CHECK (account_kind IN ('owner', 'staff', 'developer', 'support')),
    account_id   TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    expires_at   DATETIME NOT NULL,
    used_at      DATETIME
);
CREATE INDEX account_tokens_account ON account_tokens (account_kind, account_id, purpose, created_at);

CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    actor_kind  TEXT NOT NULL,
    actor_id    TEXT NOT NULL,
    actor_email TEXT NOT NULL,
    actor_role  TEXT NOT NULL,
    action      TEXT NOT NULL,
    target      TEXT NOT NULL DEFAULT '',
    before_json TEXT NOT NULL DEFAULT '',
    after_json  TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL
);
CREATE INDEX audit_log_business ON audit_log (business_id, id);

-- The log is append-only: no statement may change or remove an entry.
-- +goose StatementBegin
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
-- +goose StatementEnd

ALTER TABLE businesses ADD COLUMN category TEXT NOT NULL DEFAULT '';
ALTER TABLE businesses ADD COLUMN currency_symbol TEXT NOT NULL DEFAULT '';
ALTER TABLE businesses ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE businesses ADD COLUMN brand_color TEXT NOT NULL DEFAULT '';

-- Staff sign in with sessions of their own kind. SQLite cannot change a
-- CHECK in place: the table is rebuilt with its rows.
CREATE TABLE web_sessions_new (
    id_hash      BLOB PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('developer', 'support', 'owner', 'staff')),
    subject_id   TEXT NOT NULL,
    business_id  TEXT,
    email        TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    expires_at   DATETIME NOT NULL,
    last_seen_at DATETIME
);
INSERT INTO web_sessions_new (id_hash, kind, subject_id, business_id, email, created_at, expires_at, last_seen_at)
    SELECT id_hash, kind, subject_id, business_id, email, created_at, expires_at, last_seen_at FROM web_sessions;
DROP TABLE web_sessions;
ALTER TABLE web_sessions_new RENAME TO web_sessions;
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);
CREATE INDEX web_sessions_subject ON web_sessions (kind, subject_id);

-- +goose Down
DROP INDEX web_sessions_subject;
DELETE FROM web_sessions WHERE kind = 'staff';
ALTER TABLE businesses DROP COLUMN brand_color;
ALTER TABLE businesses DROP COLUMN time_zone;
ALTER TABLE businesses DROP COLUMN currency_symbol;
ALTER TABLE businesses DROP COLUMN category;
DROP TRIGGER audit_log_no_delete;
DROP TRIGGER audit_log_no_update;
DROP TABLE audit_log;
DROP TABLE account_tokens;
DROP TABLE staff;
