-- +goose Up
-- Points a member sent another: completed at once to a member, or held
-- (pending) for someone who is not a member yet until they join, the
-- sender recalls them, or the hold ends (returned).
CREATE TABLE transfers (
    id            TEXT NOT NULL PRIMARY KEY,
    business_id   TEXT NOT NULL REFERENCES businesses (id),
    sender_id     TEXT NOT NULL REFERENCES users (id),
    receiver_id   TEXT REFERENCES users (id),
    to_email      TEXT,
    to_phone      TEXT,
    points        BIGINT NOT NULL,
    message       TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('pending', 'completed', 'recalled', 'returned')),
    sent_entry    BIGINT NOT NULL,
    settled_entry BIGINT,
    created_at    DATETIME NOT NULL,
    expires_at    DATETIME NOT NULL,
    settled_at    DATETIME
);
CREATE INDEX transfers_sender ON transfers (business_id, sender_id, created_at);
CREATE INDEX transfers_receiver ON transfers (business_id, receiver_id, created_at);
CREATE INDEX transfers_waiting_email ON transfers (business_id, to_email) WHERE state = 'pending';
CREATE INDEX transfers_waiting_phone ON transfers (business_id, to_phone) WHERE state = 'pending';
CREATE INDEX transfers_due ON transfers (expires_at) WHERE state = 'pending';
-- A business's limit on what a member may send a day (0: none).
ALTER TABLE business_rules ADD COLUMN transfer_max_points_per_day BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE business_rules DROP COLUMN transfer_max_points_per_day;
DROP TABLE transfers;
