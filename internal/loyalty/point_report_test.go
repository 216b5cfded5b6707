package loyalty_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestPointsReportAddsUpTheLedger: over half a year of rewards (pending
// for a week), redemptions, returns and monthly expiries, the report's
// flows add up to the ledger's entries, the outstanding points at its end
// to the customers' balances, and a report by day to the same totals as
// one by month; a bad query names its field.
func TestPointsReportAddsUpTheLedger(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		now := time.Date(2027, 1, 10, 15, 0, 0, 0, time.UTC)
		w.clock(&now)
		b := w.business(t, "US")
		lb := w.policy(t, b, `{"points_expire_after":{"months":1},"pending_days":7,"time_zone":"Asia/Kolkata"}`)
		var ids []string
		for i := range 3 {
			ids = append(ids, w.create(t, b, fmt.Sprintf(`{"email":"r%d@example.com"}`, i)).ID)
		}
		for month := range 6 {
			for i, id := range ids {
				ref := `"customer":{"id":"` + id + `"}`
				w.do(t, lb, `{"intent":"reward","amount":`+money(10000*(i+month+1))+`,`+ref+`}`)
				now = now.Add(8 * 24 * time.Hour)
				w.settle(t)
				w.ledger().Create(w.ctx, lb, txInput(t, `{"intent":"redeem","points":`+itoa(20+i)+`,`+ref+`}`), nil)
				w.do(t, lb, `{"intent":"return","amount":5,`+ref+`}`)
				now = now.Add(-8 * 24 * time.Hour)
			}
			now = now.AddDate(0, 1, 0)
			w.settle(t)
		}
		report, err := (&loyalty.PointsService{Store: w.db}).Report(w.ctx, b, url.Values{"from": {"2027-01-01"}, "to": {"2027-08-31"}})
		if err != nil {
			t.Fatal(err)
		}
		var issued, spent, reversed, expired, activated, active, pending int64
		// Reversals (44 cancellations, 64 returns, 107 refunds) are neither issued nor spent.
		err = w.db.SQL().QueryRowContext(w.ctx, `SELECT
			COALESCE(SUM(CASE WHEN type_code NOT IN (1017, 1018, 44, 64, 107) AND points > 0 THEN points ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN type_code NOT IN (1017, 1018, 44, 64, 107) AND points < 0 THEN -points ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN type_code IN (44, 64, 107) THEN -points ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN type_code = 1018 THEN -points ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN type_code = 1017 THEN -pending_points ELSE 0 END), 0)
			FROM transactions WHERE business_id = $1`, b.ID).Scan(&issued, &spent, &reversed, &expired, &activated)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.db.SQL().QueryRowContext(w.ctx, `SELECT SUM(points), SUM(pending_points) FROM customers WHERE business_id = $1`,
			b.ID).Scan(&active, &pending); err != nil {
			t.Fatal(err)
		}
		tot := report.Totals
		if tot.Issued != issued || tot.Spent != spent || tot.Reversed != reversed || tot.Expired != expired || tot.Activated != activated ||
			tot.Active != active || tot.Pending != pending || expired == 0 || activated == 0 || spent == 0 || reversed == 0 {
			t.Fatalf("report totals %+v; ledger issued %d spent %d reversed %d expired %d activated %d, balances %d active %d pending",
				tot, issued, spent, reversed, expired, activated, active, pending)
		}
		if len(report.Periods) != 8 || report.TimeZone != "Asia/Kolkata" ||
			!report.Periods[1].Start.Equal(time.Date(2027, 1, 31, 18, 30, 0, 0, time.UTC)) {
			t.Fatalf("periods: %d from %v, time zone %s", len(report.Periods), report.Periods[1].Start, report.TimeZone)
		}
		daily, err := (&loyalty.PointsService{Store: w.db}).Report(w.ctx, b, url.Values{"from": {"2027-01-01"}, "to": {"2027-08-31"},
			"group": {"day"}})
		if err != nil || daily.Totals != tot || len(daily.Periods) != 243 {
			t.Fatalf("by day: %d periods, totals %+v (%v), want %+v", len(daily.Periods), daily.Totals, err, tot)
		}
		for q, field := range map[string]string{"group=week": "group", "from=2027-13-01": "from", "from=2027-02-01&to=2027-01-01": "from",
			"from=2000-01-01&group=day": "from"} {
			v, _ := url.ParseQuery(q)
			_, err := (&loyalty.PointsService{Store: w.db}).Report(w.ctx, b, v)
			wantInvalid(t, err, field)
		}
		if _, err := (&loyalty.PointsService{Store: w.db}).Report(w.ctx, b, url.Values{"since": {"x"}}); loyalty.ErrorCode(err) != loyalty.EBadRequest {
			t.Fatalf("an unknown parameter: %v", err)
		}
	})
}
