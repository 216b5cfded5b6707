-- +goose Up
-- Automations: a trigger, an optional segment, actions in order (JSON),
-- and how far the scan of the customers got (pass_started on the
-- business's clock, pass_after the last customer id reached).
CREATE TABLE automations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id      TEXT NOT NULL REFERENCES businesses (id),
    name             TEXT NOT NULL,
    enabled          BOOLEAN NOT NULL DEFAULT TRUE,
    trigger_type     TEXT NOT NULL,
    trigger_days     INTEGER NOT NULL DEFAULT 0,
    trigger_count    INTEGER NOT NULL DEFAULT 0,
    segment_id       INTEGER,
    actions          TEXT NOT NULL,
    period_days      INTEGER NOT NULL DEFAULT 0,
    pass_started     DATETIME,
    pass_after       TEXT NOT NULL DEFAULT '',
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL
);
CREATE INDEX automations_business ON automations (business_id, id);

-- One run per automation, customer and occurrence of the trigger (key),
-- with the next action to do and when.
CREATE TABLE automation_runs (
    automation_id INTEGER NOT NULL REFERENCES automations (id),
    customer_id   TEXT NOT NULL,
    run_key       TEXT NOT NULL,
    business_id   TEXT NOT NULL,
    step          INTEGER NOT NULL DEFAULT 0,
    state         TEXT NOT NULL,
    due_at        DATETIME NOT NULL,
    started_at    DATETIME NOT NULL,
    PRIMARY KEY (automation_id, customer_id, run_key)
);
CREATE INDEX automation_runs_due ON automation_runs (automation_id, state, due_at);
CREATE INDEX automation_runs_customer ON automation_runs (automation_id, customer_id, started_at);

-- +goose Down
DROP TABLE automation_runs;
DROP TABLE automations;
