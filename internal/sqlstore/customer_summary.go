package sqlstore

import (
	"context"
)

// ResyncCustomerSummaries writes every customer's summary of activity
// (visits, spend, last visit and its branch) and marketing consent again
// from the ledger and the consents, as migration 00054 first wrote them.
//
// The transactions of this release keep those summaries with each entry
// and consent; an instance of the release before 00054 writes entries and
// consents without them. After a rolling upgrade from that release, once
// no such instance is left, this brings the summaries of what they wrote
// meanwhile (loyalty migrate --resync-summaries). It may run while the
// instances serve: on PostgreSQL in batches of customers, each locked
// before it is read (procedure resync_customer_summaries, 00054); on
// SQLite in one write.
func (d *DB) ResyncCustomerSummaries(ctx context.Context) error {
	if d.dialect == Postgres {
		_, err := d.db.ExecContext(ctx, `CALL resync_customer_summaries()`)
		return dbError(err)
	}
	return d.runTx(ctx, func(t *tx) error {
		for _, q := range sqliteSummaryResync {
			if _, err := t.ExecContext(ctx, q); err != nil {
				return dbError(err)
			}
		}
		return nil
	})
}

// sqliteSummaryResync are the statements of SQLite's 00054 that write
// the summaries.
var sqliteSummaryResync = []string{
	`UPDATE customers SET visits_total = s.visits, spend_total = s.spend, last_visit_at = s.last_visit
	FROM (SELECT business_id, customer_id, SUM(visits) AS visits, SUM(tier_amount) AS spend,
			MAX(created_at) FILTER (WHERE visits > 0) AS last_visit
		FROM transactions GROUP BY business_id, customer_id) AS s
	WHERE customers.business_id = s.business_id AND customers.user_id = s.customer_id`,
	`UPDATE customers SET last_visit_branch = (SELECT t.branch_id FROM transactions t
		WHERE t.business_id = customers.business_id AND t.customer_id = customers.user_id AND t.visits > 0
		ORDER BY t.created_at DESC, t.id DESC LIMIT 1)
	WHERE last_visit_at IS NOT NULL`,
	`UPDATE customers SET consent_email = c.allow_email, consent_sms = c.allow_sms, consent_push = c.allow_push
	FROM consents c
	WHERE c.id = (SELECT MAX(n.id) FROM consents n WHERE n.business_id = customers.business_id
		AND n.customer_id = customers.user_id AND n.kind = 'marketing')`,
}
