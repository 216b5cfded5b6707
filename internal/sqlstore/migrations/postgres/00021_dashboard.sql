-- +goose Up
-- The dashboard's rollups, kept by a follower of the event log (the
-- "dashboard" cursor of event_cursors, see internal/events/rollup.go)
-- which folds a page of a business's events into them and advances its
-- cursor in one transaction: each event is counted once. The dashboard
-- reads them with the few events past the cursor folded at read time.
--
-- One row per business, branch ('' for entries at no branch, new members
-- and referrals) and day in the business's time zone ('YYYY-MM-DD'), so
-- a period's figures cost its days, not its entries. Money in minor units.
CREATE TABLE dashboard_days (
    business_id     TEXT NOT NULL REFERENCES businesses (id),
    branch_id       TEXT NOT NULL,
    day             TEXT NOT NULL,
    members_new     BIGINT NOT NULL DEFAULT 0,
    visits          BIGINT NOT NULL DEFAULT 0,
    revenue         BIGINT NOT NULL DEFAULT 0,
    points_issued   BIGINT NOT NULL DEFAULT 0,
    points_redeemed BIGINT NOT NULL DEFAULT 0,
    referrals_paid  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (business_id, day, branch_id)
);

-- Each customer's last day with a visit, for the active members of the
-- last 30 and 90 days: an index range counts them.
CREATE TABLE dashboard_members (
    business_id    TEXT NOT NULL REFERENCES businesses (id),
    customer_id    TEXT NOT NULL,
    last_visit_day TEXT NOT NULL,
    PRIMARY KEY (business_id, customer_id)
);
CREATE INDEX dashboard_members_visit ON dashboard_members (business_id, last_visit_day);

-- +goose Down
DROP TABLE dashboard_members;
DROP TABLE dashboard_days;
