-- +goose Up
-- A business's earning rules (/earning-rules): when each applies and what
-- it gives. What it decides by (its schedule, conditions and effect) is
-- one JSON document the domain reads (loyalty.RuleDefinition); the
-- columns beside it are what lists and orders them.
CREATE TABLE earning_rules (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    name        TEXT NOT NULL,
    enabled     BOOLEAN NOT NULL,
    priority    INTEGER NOT NULL DEFAULT 0,
    exclusive   BOOLEAN NOT NULL DEFAULT FALSE,
    starts_at   DATETIME,
    ends_at     DATETIME,
    definition  TEXT NOT NULL,
    deleted_at  DATETIME,
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE INDEX earning_rules_business ON earning_rules (business_id, id);

-- +goose Down
DROP TABLE earning_rules;
