-- +goose Up
-- The member wallet (/wallet/{business}): members sign in to browser
-- sessions of their own kind, and may sign in with a one-time code sent
-- to their e-mail or phone. SQLite cannot change a CHECK in place: both
-- tables are rebuilt with their rows.
CREATE TABLE web_sessions_new (
    id_hash      BLOB PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('developer', 'support', 'owner', 'staff', 'member')),
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

CREATE TABLE user_secrets_new (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     TEXT NOT NULL REFERENCES users (id),
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify', 'reset_token', 'reset_code', 'signin_code')),
    target      TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    tries       INTEGER NOT NULL DEFAULT 0,
    expires_at  DATETIME NOT NULL,
    used_at     DATETIME,
    created_at  DATETIME NOT NULL
);
INSERT INTO user_secrets_new (id, user_id, purpose, target, secret_hash, tries, expires_at, used_at, created_at)
    SELECT id, user_id, purpose, target, secret_hash, tries, expires_at, used_at, created_at FROM user_secrets;
DROP TABLE user_secrets;
ALTER TABLE user_secrets_new RENAME TO user_secrets;
CREATE INDEX user_secrets_user ON user_secrets (user_id, purpose, created_at);
CREATE INDEX user_secrets_hash ON user_secrets (secret_hash);

-- +goose Down
DELETE FROM web_sessions WHERE kind = 'member';
DELETE FROM user_secrets WHERE purpose = 'signin_code';
CREATE TABLE web_sessions_old (
    id_hash      BLOB PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('developer', 'support', 'owner', 'staff')),
    subject_id   TEXT NOT NULL,
    business_id  TEXT,
    email        TEXT NOT NULL,
    created_at   DATETIME NOT NULL,
    expires_at   DATETIME NOT NULL,
    last_seen_at DATETIME
);
INSERT INTO web_sessions_old (id_hash, kind, subject_id, business_id, email, created_at, expires_at, last_seen_at)
    SELECT id_hash, kind, subject_id, business_id, email, created_at, expires_at, last_seen_at FROM web_sessions;
DROP TABLE web_sessions;
ALTER TABLE web_sessions_old RENAME TO web_sessions;
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);
CREATE INDEX web_sessions_subject ON web_sessions (kind, subject_id);
CREATE TABLE user_secrets_old (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     TEXT NOT NULL REFERENCES users (id),
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify', 'reset_token', 'reset_code')),
    target      TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    tries       INTEGER NOT NULL DEFAULT 0,
    expires_at  DATETIME NOT NULL,
    used_at     DATETIME,
    created_at  DATETIME NOT NULL
);
INSERT INTO user_secrets_old (id, user_id, purpose, target, secret_hash, tries, expires_at, used_at, created_at)
    SELECT id, user_id, purpose, target, secret_hash, tries, expires_at, used_at, created_at FROM user_secrets;
DROP TABLE user_secrets;
ALTER TABLE user_secrets_old RENAME TO user_secrets;
CREATE INDEX user_secrets_user ON user_secrets (user_id, purpose, created_at);
CREATE INDEX user_secrets_hash ON user_secrets (secret_hash);
