package sqlstore_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
)

// TestCustomerSummariesBackfill: migration 00054 writes each customer's
// summary (visits, spend, last visit and its branch, marketing consent)
// from the entries and consents stored before it; entries and consents
// written afterwards without a summary, as an instance of the previous
// release writes them during a rolling upgrade, are brought in by
// ResyncCustomerSummaries, which leaves the others as they are.
func TestCustomerSummariesBackfill(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		if err := db.MigrateDownTo(ctx, 53); err != nil {
			t.Fatal(err)
		}
		b := createBusiness(t, db, "")
		biz := b.BusinessID
		var main string
		if err := db.SQL().QueryRowContext(ctx, `SELECT id FROM branches WHERE business_id = $1 AND is_main`, biz).Scan(&main); err != nil {
			t.Fatal(err)
		}
		other := "br-" + biz[:8]
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO branches (id, business_id, name, created_at) VALUES ($1, $2, 'Other', $3)`,
			other, biz, time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 5 {
			id := fmt.Sprintf("sum-%d-%s", i, biz[:8])
			for _, q := range []string{`INSERT INTO users (id, email, created_at, updated_at) VALUES ($1, $2, $3, $3)`,
				`INSERT INTO customers (business_id, user_id, email, created_at, updated_at) VALUES ($4, $1, $2, $3, $3)`} {
				args := []any{id, id + "@seed.example", time.Now().UTC(), biz}
				if !strings.Contains(q, "$4") {
					args = args[:3]
				}
				if _, err := db.SQL().ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			ids = append(ids, id)
		}
		day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		entry := func(customer, branch string, visits, spend int64, at time.Time) {
			t.Helper()
			var br any
			if branch != "" {
				br = branch
			}
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO transactions (business_id, customer_id, branch_id, intent, type_code, name,
				visits, tier_amount, created_at) VALUES ($1, $2, $3, 'reward', 1, 'Purchase', $4, $5, $6)`,
				biz, customer, br, visits, spend, at); err != nil {
				t.Fatal(err)
			}
		}
		consent := func(customer string, email, sms, push bool) {
			t.Helper()
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO consents (business_id, customer_id, kind, allow_email, allow_sms, allow_push,
				source, changed_by, created_at) VALUES ($1, $2, 'marketing', $3, $4, $5, 'console', 'test', $6)`,
				biz, customer, email, sms, push, day); err != nil {
				t.Fatal(err)
			}
		}
		// 0: two visits, the last at the other branch, then an entry
		// without a visit later; 1: a visit naming no branch; 2: spend
		// without a visit; 3: consent given then taken back on e-mail;
		// 4: nothing.
		entry(ids[0], main, 1, 1000, day)
		entry(ids[0], other, 1, 2500, day.Add(time.Hour))
		entry(ids[0], main, 0, -500, day.Add(2*time.Hour))
		entry(ids[1], "", 1, 700, day)
		entry(ids[2], main, 0, 300, day)
		consent(ids[3], true, true, false)
		consent(ids[3], false, true, false)
		consent(ids[0], true, false, true)

		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		t1 := day.Add(time.Hour)
		want := map[string]string{
			ids[0]: summary(2, 3000, &t1, other, true, false, true),
			ids[1]: summary(1, 700, &day, "", false, false, false),
			ids[2]: summary(0, 300, nil, "", false, false, false),
			ids[3]: summary(0, 0, nil, "", false, true, false),
			ids[4]: summary(0, 0, nil, "", false, false, false),
		}
		checkSummaries(t, db, biz, ids, want, "after the migration")

		// What an instance of the previous release writes: entries and
		// consents alone.
		later := day.AddDate(0, 1, 0)
		entry(ids[4], other, 1, 900, later)
		entry(ids[1], main, 2, 100, later)
		consent(ids[4], true, true, true)
		if err := db.ResyncCustomerSummaries(ctx); err != nil {
			t.Fatal(err)
		}
		want[ids[4]] = summary(1, 900, &later, other, true, true, true)
		want[ids[1]] = summary(3, 800, &later, main, false, false, false)
		checkSummaries(t, db, biz, ids, want, "after the resync")
	})
}

func summary(visits, spend int64, last *time.Time, branch string, email, sms, push bool) string {
	at := "-"
	if last != nil {
		at = last.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("visits %d, spend %d, last visit %s at %q, consent %t/%t/%t", visits, spend, at, branch, email, sms, push)
}

func checkSummaries(t *testing.T, db *sqlstore.DB, biz string, ids []string, want map[string]string, when string) {
	t.Helper()
	for i, id := range ids {
		var visits, spend int64
		var last sql.NullTime
		var branch sql.NullString
		var email, sms, push bool
		if err := db.SQL().QueryRowContext(ctx, `SELECT visits_total, spend_total, last_visit_at, last_visit_branch,
			consent_email, consent_sms, consent_push FROM customers WHERE business_id = $1 AND user_id = $2`, biz, id).
			Scan(&visits, &spend, &last, &branch, &email, &sms, &push); err != nil {
			t.Fatal(err)
		}
		var at *time.Time
		if last.Valid {
			at = &last.Time
		}
		if got := summary(visits, spend, at, branch.String, email, sms, push); got != want[id] {
			t.Errorf("%s, customer %d: %s; want %s", when, i, got, want[id])
		}
	}
}
