package sqlstore_test

import (
	"testing"

	"github.com/loyalty/loyalty/internal/sqlstore"
)

// checkNoOrphans fails tb if the business has a lot or a basket whose
// entry the ledger does not hold (or holds for another customer), or the
// database a basket line without its basket. On PostgreSQL no key holds
// them since migration 00074 (00072 for the lines): the store writes a
// lot or basket only with its entry, and this check, run after every
// road of TestRoadsAgree, holds it to that.
func checkNoOrphans(tb testing.TB, db *sqlstore.DB, businessID string) {
	tb.Helper()
	orphans := textColumn(tb, db.SQL(), `
		SELECT 'lot ' || l.id || ' of entry ' || l.entry_id FROM point_lots l
		WHERE l.business_id = $1 AND l.entry_id IS NOT NULL AND NOT EXISTS (
			SELECT 1 FROM transactions t WHERE t.id = l.entry_id AND t.business_id = l.business_id AND t.customer_id = l.customer_id)
		UNION ALL
		SELECT 'basket of entry ' || b.entry_id FROM baskets b
		WHERE b.business_id = $1 AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = b.entry_id AND t.business_id = b.business_id)
		UNION ALL
		SELECT 'line ' || l.line || ' of entry ' || l.entry_id FROM basket_lines l
		WHERE NOT EXISTS (SELECT 1 FROM baskets b WHERE b.entry_id = l.entry_id)`, businessID)
	if len(orphans) > 0 {
		tb.Errorf("%d rows without the entry or basket they belong to: %q", len(orphans), orphans)
	}
}
