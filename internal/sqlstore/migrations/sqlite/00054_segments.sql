-- +goose Up
-- Segments: a business's named filters over its customers, the filter
-- kept as the business wrote it (JSON).
CREATE TABLE segments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id TEXT NOT NULL REFERENCES businesses (id),
    name        TEXT NOT NULL,
    filter      TEXT NOT NULL DEFAULT '{}',
    created_at  DATETIME NOT NULL,
    updated_at  DATETIME NOT NULL
);
CREATE INDEX segments_business ON segments (business_id, id);

-- A customer's tags, each once.
CREATE TABLE customer_tags (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    customer_id TEXT NOT NULL,
    tag         TEXT NOT NULL,
    PRIMARY KEY (business_id, customer_id, tag)
);
CREATE INDEX customer_tags_tag ON customer_tags (business_id, tag, customer_id);

-- A customer's summary of activity, kept by the transaction that writes
-- each ledger entry (loyalty.EntryActivity): the last visit and its
-- branch (NULL for an entry that named none: the main branch), and the
-- visits and spend (tier spend, in cents) of every entry. The current
-- marketing consent, kept by the transaction that records a choice.
-- No index on them: a segment reads a business's customers rows whole
-- (its count is a scan of them), and an index led by business_id would
-- tempt generic plans away from the customers' key.
ALTER TABLE customers ADD COLUMN last_visit_at DATETIME;
ALTER TABLE customers ADD COLUMN last_visit_branch TEXT;
ALTER TABLE customers ADD COLUMN visits_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE customers ADD COLUMN spend_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE customers ADD COLUMN consent_email BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE customers ADD COLUMN consent_sms BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE customers ADD COLUMN consent_push BOOLEAN NOT NULL DEFAULT FALSE;

UPDATE customers SET visits_total = s.visits, spend_total = s.spend, last_visit_at = s.last_visit
FROM (SELECT business_id, customer_id, SUM(visits) AS visits, SUM(tier_amount) AS spend,
        MAX(created_at) FILTER (WHERE visits > 0) AS last_visit
      FROM transactions GROUP BY business_id, customer_id) AS s
WHERE customers.business_id = s.business_id AND customers.user_id = s.customer_id;
UPDATE customers SET last_visit_branch = (SELECT t.branch_id FROM transactions t
    WHERE t.business_id = customers.business_id AND t.customer_id = customers.user_id AND t.visits > 0
    ORDER BY t.created_at DESC, t.id DESC LIMIT 1)
WHERE last_visit_at IS NOT NULL;
UPDATE customers SET consent_email = c.allow_email, consent_sms = c.allow_sms, consent_push = c.allow_push
FROM consents c
WHERE c.id = (SELECT MAX(n.id) FROM consents n WHERE n.business_id = customers.business_id
    AND n.customer_id = customers.user_id AND n.kind = 'marketing');

-- +goose Down
ALTER TABLE customers DROP COLUMN consent_push;
ALTER TABLE customers DROP COLUMN consent_sms;
ALTER TABLE customers DROP COLUMN consent_email;
ALTER TABLE customers DROP COLUMN spend_total;
ALTER TABLE customers DROP COLUMN visits_total;
ALTER TABLE customers DROP COLUMN last_visit_branch;
ALTER TABLE customers DROP COLUMN last_visit_at;
DROP TABLE customer_tags;
DROP TABLE segments;
