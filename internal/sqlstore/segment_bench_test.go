package sqlstore_test

import (
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkSegmentCount counts segments of a business of 1,000,000
// customers on PostgreSQL, with planner statistics as a bulk load leaves
// them (never analysed: autovacuum is off here). Each customer has an
// activity summary and two ledger entries spread over 400 days. The
// reference is counting all of the business's customers (COUNT(*) of its
// rows, the least a segment's count reads); the segments are one over the
// summary columns (not seen in 60 days, 100 points or more, e-mail
// consent) and one over the ledger (2 visits or more in the last 30
// days). The target is under 2 s for a count.
//
//	go test ./internal/sqlstore -run '^$' -bench SegmentCount -benchtime 5x -count 8 -timeout 60m
func BenchmarkSegmentCount(b *testing.B) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		b.Skip("PostgreSQL")
	}
	db := testenv.Open(b, sqlstore.Postgres)
	biz := createBusiness(b, db, "").BusinessID
	const n = 1_000_000
	now := time.Now().UTC()
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at, updated_at)
			SELECT $1 || '-' || g, $1 || '-' || g || '@seed.example', $3, $3 FROM generate_series(1, $2) g`,
		`INSERT INTO customers (business_id, user_id, email, points, birth_date, created_at, updated_at,
			last_visit_at, visits_total, spend_total, consent_email, consent_sms)
			SELECT $1, $1 || '-' || g, $1 || '-' || g || '@seed.example', g % 2000,
				'1980-' || lpad(((g % 12) + 1)::text, 2, '0') || '-15', $3::timestamptz - interval '500 days', $3,
				CASE WHEN g % 10 = 0 THEN NULL ELSE $3::timestamptz - (g % 400) * interval '1 day' END, g % 20, (g * 37) % 100000,
				g % 3 = 0, g % 5 = 0
			FROM generate_series(1, $2) g`,
		`INSERT INTO transactions (business_id, customer_id, intent, type_code, name, amount, points, visits, tier_amount, created_at)
			SELECT $1, $1 || '-' || (g % $2 + 1), 'reward', 1, 'Purchase', 1000, 10, 1, 1000, $3::timestamptz - (g % 400) * interval '1 day'
			FROM generate_series(1, 2 * $2) g`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q, biz, n, now); err != nil {
			b.Fatal(err)
		}
	}
	count := func(b *testing.B, c loyalty.CustomerCriteria) int {
		got, err := db.CountCustomers(ctx, biz, c)
		if err != nil {
			b.Fatal(err)
		}
		return got
	}
	one := int64(100)
	two := int64(2)
	email := loyalty.ContactChannels{Email: true}
	cases := []struct {
		name string
		c    loyalty.CustomerCriteria
	}{
		{"all", loyalty.CustomerCriteria{}},
		{"summary", loyalty.CustomerCriteria{NoVisitSince: now.AddDate(0, 0, -60), PointsMin: &one, Consent: &email}},
		{"ledger30d", loyalty.CustomerCriteria{Visits: &loyalty.LedgerSum{From: now.AddDate(0, 0, -30), Min: &two}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var got int
			for b.Loop() {
				got = count(b, c.c)
			}
			b.ReportMetric(float64(got), "customers")
		})
	}
	// The console's list of segments: the three above counted one by one,
	// and all at once in one pass (CountCustomersEach).
	var all []loyalty.CustomerCriteria
	for _, c := range cases {
		all = append(all, c.c)
	}
	b.Run("three/one-by-one", func(b *testing.B) {
		for b.Loop() {
			for _, c := range all {
				count(b, c)
			}
		}
	})
	b.Run("three/at-once", func(b *testing.B) {
		for b.Loop() {
			got, err := db.CountCustomersEach(ctx, biz, all)
			if err != nil || len(got) != len(all) {
				b.Fatal(got, err)
			}
		}
	})
}
