-- +goose Up
-- Webhook endpoints: where a business wants its events POSTed, signed per
-- Standard Webhooks. The signing secret must be readable to sign, so it is
-- kept encrypted (AES-GCM under the server secret webhook_secrets, see
-- sqlstore/webhook_secret.go), never in clear. During a rotation the
-- previous secret signs too, until previous_secret_until.
CREATE TABLE webhook_endpoints (
    id                    TEXT PRIMARY KEY NOT NULL,
    business_id           TEXT NOT NULL REFERENCES businesses (id),
    url                   TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    event_types           TEXT NOT NULL DEFAULT '',
    enabled               BOOLEAN NOT NULL,
    disabled_reason       TEXT NOT NULL DEFAULT '',
    secret                TEXT NOT NULL,
    previous_secret       TEXT NOT NULL DEFAULT '',
    previous_secret_until DATETIME,
    failing_since         DATETIME,
    created_at            DATETIME NOT NULL,
    updated_at            DATETIME NOT NULL
);
CREATE INDEX webhook_endpoints_business ON webhook_endpoints (business_id, id);

-- One row per (endpoint, event): the fan-out writes it at most once (the
-- primary key), and delivery workers claim it with a lease, as the outbox
-- does. While pending or sending, next_attempt_at is when it is due: the
-- next attempt, or the end of the claim's lease (its worker died). body is
-- the event as GET /events shows it, signed the same on every attempt.
CREATE TABLE webhook_deliveries (
    endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL,
    business_id     TEXT NOT NULL,
    seq             BIGINT NOT NULL,
    event_type      TEXT NOT NULL,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at DATETIME,
    claim           TEXT,
    last_status     INTEGER,
    last_latency_ms INTEGER,
    last_response   TEXT,
    last_error      TEXT,
    last_attempt_at DATETIME,
    created_at      DATETIME NOT NULL,
    PRIMARY KEY (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state IN ('pending', 'sending');
-- Pruning the log past the events' retention.
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
