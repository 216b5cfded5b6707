-- +goose Up
-- Campaigns: a message (and a gift) to the customers of a segment, once
-- each, with a holdout drawn that receives nothing. The segment is read
-- when the campaign is sent; channels are a comma-separated list in order
-- of preference; quiet hours are HH:MM in the business's time zone ('' for
-- none). draw_after is how far drawing got (the last customer id drawn).
CREATE TABLE campaigns (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id       TEXT NOT NULL REFERENCES businesses (id),
    name              TEXT NOT NULL,
    segment_id        INTEGER NOT NULL,
    channels          TEXT NOT NULL,
    subject           TEXT NOT NULL DEFAULT '',
    email_body        TEXT NOT NULL DEFAULT '',
    sms_body          TEXT NOT NULL DEFAULT '',
    gift_points       INTEGER NOT NULL DEFAULT 0,
    gift_offer_id     INTEGER,
    skip_reached_days INTEGER NOT NULL DEFAULT 0,
    quiet_start       TEXT NOT NULL DEFAULT '',
    quiet_end         TEXT NOT NULL DEFAULT '',
    holdout_percent   INTEGER NOT NULL DEFAULT 10,
    report_days       INTEGER NOT NULL DEFAULT 30,
    state             TEXT NOT NULL CHECK (state IN ('draft', 'scheduled', 'sending', 'sent')),
    send_at           DATETIME,
    started_at        DATETIME,
    finished_at       DATETIME,
    draw_after        TEXT NOT NULL DEFAULT '',
    drawn             BOOLEAN NOT NULL DEFAULT FALSE,
    created_at        DATETIME NOT NULL,
    updated_at        DATETIME NOT NULL
);
CREATE INDEX campaigns_business ON campaigns (business_id, id);
CREATE INDEX campaigns_state ON campaigns (state, id);

-- Each customer a campaign drew, once: in the holdout, or what reaching
-- them did (outcome), on which channel, with the message queued and the
-- gift's ledger entry.
CREATE TABLE campaign_recipients (
    campaign_id   INTEGER NOT NULL REFERENCES campaigns (id),
    business_id   TEXT NOT NULL,
    customer_id   TEXT NOT NULL,
    outcome       TEXT NOT NULL,
    channel       TEXT NOT NULL DEFAULT '',
    message_id    INTEGER,
    gift_entry_id INTEGER,
    done_at       DATETIME,
    PRIMARY KEY (campaign_id, customer_id)
);
CREATE INDEX campaign_recipients_outcome ON campaign_recipients (campaign_id, outcome, customer_id);
CREATE INDEX campaign_recipients_customer ON campaign_recipients (business_id, customer_id, done_at);

-- Extra e-mail headers of a message (JSON object; '' for none).
ALTER TABLE outbox ADD COLUMN headers TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE outbox DROP COLUMN headers;
DROP TABLE campaign_recipients;
DROP TABLE campaigns;
