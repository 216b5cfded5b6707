-- +goose Up
-- The user API: whether a person's e-mail and phone are verified, the
-- single-use secrets sent to verify them or to reset a PIN (stored hashed),
-- and the outbox of messages written in the same transaction as the change
-- that causes them.
ALTER TABLE users ADD COLUMN email_verified_at DATETIME;
ALTER TABLE users ADD COLUMN phone_verified_at DATETIME;

CREATE TABLE user_secrets (
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
CREATE INDEX user_secrets_user ON user_secrets (user_id, purpose, created_at);
CREATE INDEX user_secrets_hash ON user_secrets (secret_hash);

CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL DEFAULT '',
    body            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at DATETIME NOT NULL,
    lease_until     DATETIME,
    claim           TEXT,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL,
    sent_at         DATETIME
);
CREATE INDEX outbox_due ON outbox (status, next_attempt_at);

-- +goose Down
DROP TABLE outbox;
DROP TABLE user_secrets;
ALTER TABLE users DROP COLUMN phone_verified_at;
ALTER TABLE users DROP COLUMN email_verified_at;
