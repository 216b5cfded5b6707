-- +goose Up
-- The businesses whose dashboard must be folded from their history: the
-- dashboard's rollups are folded from the event log, and a business that
-- has never had an event (its history predates migration 00015, the
-- event log, which an upgrade from before it runs together with this one)
-- has every ledger entry, customer and paid referral without one. The
-- dashboard's follower folds, for each business listed, what no event
-- stands for, and removes it from the list in the same transaction (see
-- sqlstore.BackfillDashboards). A business that had events is not listed:
-- its history since the event log is in the events, and what came before
-- cannot be told apart any more.
CREATE TABLE dashboard_backfills (
    business_id TEXT PRIMARY KEY NOT NULL
);
INSERT INTO dashboard_backfills (business_id)
SELECT b.id FROM businesses b
WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.business_id = b.id)
    AND NOT EXISTS (SELECT 1 FROM event_sequences s WHERE s.business_id = b.id AND s.last_seq > 0)
    AND (EXISTS (SELECT 1 FROM transactions t WHERE t.business_id = b.id)
        OR EXISTS (SELECT 1 FROM customers c WHERE c.business_id = b.id));

-- +goose Down
DROP TABLE dashboard_backfills;
