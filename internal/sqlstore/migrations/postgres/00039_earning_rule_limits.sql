-- +goose Up
-- The counters of the earning rules' limits: a customer's uses of a rule
-- in a period, and the points a rule's budget gave in a period ('' is the
-- rule's whole life). A reward that counts a limited rule adds to them in
-- its own transaction, by one conditional upsert that concurrent rewards
-- wait on, so no bound is passed on any number of instances.
CREATE TABLE earning_rule_uses (
    rule_id     BIGINT NOT NULL REFERENCES earning_rules (id),
    customer_id TEXT NOT NULL,
    period      TEXT NOT NULL,
    uses        BIGINT NOT NULL,
    PRIMARY KEY (rule_id, customer_id, period)
);

CREATE TABLE earning_rule_budgets (
    rule_id BIGINT NOT NULL REFERENCES earning_rules (id),
    period  TEXT NOT NULL,
    points  BIGINT NOT NULL,
    PRIMARY KEY (rule_id, period)
);

-- +goose Down
DROP TABLE earning_rule_budgets;
DROP TABLE earning_rule_uses;
