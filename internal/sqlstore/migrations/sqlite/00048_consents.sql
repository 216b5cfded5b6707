-- +goose Up
-- What customers chose to hear from a business, each change a new row
-- (append-only): marketing consent and notification preferences, with
-- where (app, console, import, api) and by whom each was made.
CREATE TABLE consents (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    customer_id TEXT NOT NULL REFERENCES users (id),
    kind        TEXT NOT NULL CHECK (kind IN ('marketing', 'notifications')),
    allow_email BOOLEAN NOT NULL,
    allow_sms   BOOLEAN NOT NULL,
    allow_push  BOOLEAN NOT NULL,
    source      TEXT NOT NULL CHECK (source IN ('app', 'console', 'import', 'api')),
    changed_by  TEXT NOT NULL,
    created_at  DATETIME NOT NULL
);
CREATE INDEX consents_customer ON consents (business_id, customer_id, kind, id);

-- +goose Down
DROP TABLE consents;
