package sqlstore_test

import (
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestBackfillListsBusinessesWithoutEvents: migration 00026 lists for a
// backfill the businesses with customers or entries but no event ever
// (history from before the event log), and not one with events, nor one
// with nothing at all.
func TestBackfillListsBusinessesWithoutEvents(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		withEvents := createBusiness(t, db, "").BusinessID
		createCustomer(t, db, withEvents, loyalty.CustomerInput{Email: loyalty.Some("events@example.com")})
		history := createBusiness(t, db, "").BusinessID
		createCustomer(t, db, history, loyalty.CustomerInput{Email: loyalty.Some("history@example.com")})
		for _, q := range []string{`DELETE FROM events WHERE business_id = $1`, `DELETE FROM event_sequences WHERE business_id = $1`} {
			if _, err := db.SQL().ExecContext(ctx, q, history); err != nil {
				t.Fatal(err)
			}
		}
		empty := createBusiness(t, db, "").BusinessID
		if err := db.MigrateDownTo(ctx, 25); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		listed := textColumn(t, db.SQL(), `SELECT business_id FROM dashboard_backfills`)
		if !slices.Equal(listed, []string{history}) || slices.Contains(listed, empty) {
			t.Errorf("listed %v, want only %s (with events %s, empty %s)", listed, history, withEvents, empty)
		}
	})
}
