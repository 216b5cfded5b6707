package loyalty_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// ledgerFigures computes a business's dashboard straight from the ledger
// and the customers, with the rules loyalty.Figures states, for the days
// of the business's time zone from..to (the test's entries are all today).
func (w *world) ledgerFigures(tb testing.TB, b loyalty.Business) console.Summary {
	tb.Helper()
	var s console.Summary
	err := w.db.SQL().QueryRowContext(w.ctx, `SELECT COALESCE(SUM(t.visits), 0),
			COALESCE(SUM(CASE WHEN t.intent = 'reward' THEN t.amount WHEN o.intent = 'reward' THEN -t.amount ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN t.points > 0 AND t.intent IN ('cancellation', 'refund_redeemed_points') THEN 0
				WHEN t.points < 0 AND t.intent IN ('redeem', 'get_coupon', 'claim_coupon') THEN 0 ELSE t.points END), 0),
			COALESCE(SUM(CASE WHEN t.points > 0 AND t.intent IN ('cancellation', 'refund_redeemed_points') THEN -t.points
				WHEN t.points < 0 AND t.intent IN ('redeem', 'get_coupon', 'claim_coupon') THEN -t.points ELSE 0 END), 0),
			COUNT(DISTINCT CASE WHEN t.visits > 0 THEN t.customer_id END)
		FROM transactions t LEFT JOIN transactions o ON o.id = t.reverses_id WHERE t.business_id = $1`, b.ID).
		Scan(&s.Visits, &s.Revenue, &s.PointsIssued, &s.PointsRedeemed, &s.Active30)
	if err != nil {
		tb.Fatal(err)
	}
	s.Active90 = s.Active30
	err = w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*), COALESCE(SUM(points), 0) FROM customers
		WHERE business_id = $1 AND deleted_at IS NULL`, b.ID).Scan(&s.Members, &s.Outstanding)
	if err != nil {
		tb.Fatal(err)
	}
	s.MembersNew = s.Members
	err = w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*) FROM referrals WHERE business_id = $1 AND paid_at IS NOT NULL`,
		b.ID).Scan(&s.ReferralsPaid)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// farBusiness creates a business in a zone far from UTC, so that the
// day of the entries is the business's.
func (w *world) farBusiness(t *testing.T) loyalty.Business {
	t.Helper()
	b := w.business(t, "US")
	if _, err := w.db.SQL().ExecContext(w.ctx, `UPDATE businesses SET time_zone = 'Pacific/Kiritimati' WHERE id = $1`, b.ID); err != nil {
		t.Fatal(err)
	}
	return b
}

// ledgerOf returns the business with its rules, the ledger's service, and
// run, which writes one POST /transactions body through it.
func (w *world) ledgerOf(t *testing.T, b loyalty.Business) (loyalty.Business, *loyalty.TransactionService, func(string) loyalty.Transaction) {
	t.Helper()
	loaded, err := w.db.BusinessWithRules(w.ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	ledger := &loyalty.TransactionService{Store: w.db, Customers: w.svc}
	return loaded, ledger, func(body string) loyalty.Transaction {
		t.Helper()
		e, _, err := ledger.Create(w.ctx, loaded, txInput(t, body), nil)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return e
	}
}

// TestDashboardMatchesLedger checks that the dashboard's figures equal
// the sums over the ledger after rewards, redemptions, cancellations, new
// customers and a paid referral — both when the follower folded every
// event and when some are not folded yet (read at read time) — and that
// the follower run again, or a page folded twice, counts nothing twice.
func TestDashboardMatchesLedger(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.farBusiness(t)
		now := time.Now().UTC()
		if _, err := w.db.SQL().ExecContext(w.ctx, `INSERT INTO rewards (business_id, kind, title, points, enabled, created_at,
			updated_at, type_id, amount, real_value) VALUES ($1, 'catalog_item', 'Coffee', 40, TRUE, $2, $2, 15, 0, 350),
			($1, 'catalog_item', '5 off', 100, TRUE, $2, $2, 16, 500, 0)`, b.ID, now); err != nil {
			t.Fatal(err)
		}
		loaded, ledger, run := w.ledgerOf(t, b)
		follower := &events.Rollup{Store: w.db, Page: 3}
		dash := &console.DashboardService{Store: w.db}
		check := func(what string) {
			t.Helper()
			today := time.Now().In(loyalty.BusinessLocation("Pacific/Kiritimati")).Format(loyalty.DayFormat)
			got, err := dash.Summary(w.ctx, b.ID, today, today, "", console.ByDay)
			if err != nil {
				t.Fatal(err)
			}
			want := w.ledgerFigures(t, b)
			if got.Figures != want.Figures || got.Members != want.Members || got.Outstanding != want.Outstanding ||
				got.Active30 != want.Active30 || got.Active90 != want.Active90 {
				t.Fatalf("%s: dashboard %+v members %d outstanding %d active %d/%d\nledger %+v members %d outstanding %d active %d",
					what, got.Figures, got.Members, got.Outstanding, got.Active30, got.Active90,
					want.Figures, want.Members, want.Outstanding, want.Active30)
			}
			if len(got.Series) != 1 || got.Series[0].Figures != got.Figures {
				t.Fatalf("%s: series %+v", what, got.Series)
			}
			// 3.50 for 40 points (8.75 per 100) beats 5.00 for 100.
			if got.PointValue != (loyalty.PointValue{Value: 350, Points: 40}) || got.Liability != loyalty.Money(got.Outstanding*350/40) {
				t.Fatalf("%s: point value %+v liability %d of %d points", what, got.PointValue, got.Liability, got.Outstanding)
			}
		}

		referrer := w.create(t, b, `{"email":"referrer@example.com"}`)
		run(`{"intent":"reward","amount":120,"customer":{"id":"` + referrer.ID + `"}}`)
		prog := w.referralProgram(t, b, true)
		referee := w.create(t, b, `{"email":"referee@example.com","referral":{"referral_program_id":`+strconv.FormatInt(prog, 10)+`,"referrer_id":"`+referrer.ID+`"}}`)
		run(`{"intent":"reward","amount":20,"customer":{"id":"` + referee.ID + `"}}`)
		cancelled := run(`{"intent":"reward","amount":30,"customer":{"id":"` + referrer.ID + `"}}`)
		if _, err := ledger.Cancel(w.ctx, loaded, cancelled.ID); err != nil {
			t.Fatal(err)
		}
		redeemed := run(`{"intent":"redeem","points":7,"customer":{"id":"` + referrer.ID + `"}}`)
		run(`{"intent":"redeem","points":5,"customer":{"id":"` + referrer.ID + `"}}`)
		if _, err := ledger.Cancel(w.ctx, loaded, redeemed.ID); err != nil {
			t.Fatal(err)
		}
		check("nothing folded")
		if n, err := follower.Drain(w.ctx); err != nil || n == 0 {
			t.Fatalf("Drain: %d, %v", n, err)
		}
		check("all folded")

		// Events past the cursor are counted at read time.
		late := w.create(t, b, `{"email":"late@example.com"}`)
		run(`{"intent":"reward","amount":45,"customer":{"id":"` + late.ID + `"}}`)
		run(`{"intent":"redeem","points":2,"customer":{"id":"` + referee.ID + `"}}`)
		// A folded visitor visiting again counts once among the active.
		run(`{"intent":"reward","amount":10,"customer":{"id":"` + referrer.ID + `"}}`)
		check("some not folded")

		if n, err := follower.Drain(w.ctx); err != nil || n == 0 {
			t.Fatalf("Drain: %d, %v", n, err)
		}
		if n, err := follower.Drain(w.ctx); err != nil || n != 0 {
			t.Fatalf("Drain again: %d, %v", n, err)
		}
		check("folded again")

		// A page folded a second time from the same starting point (a
		// worker that lost its lease) is refused, and changes nothing.
		// The other worker claims once the follower's lease, which it
		// keeps between rounds, has run out.
		page, err := w.db.Events(w.ctx, b.ID, loyalty.EventQuery{After: 0, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := w.db.ClaimCursor(w.ctx, loyalty.DashboardDestination, b.ID, "other", time.Now(), time.Now().Add(time.Minute)); ok {
			t.Fatal("another worker took the cursor while the follower's lease held")
		}
		expired := time.Now().Add(time.Minute)
		seq, ok, err := w.db.ClaimCursor(w.ctx, loyalty.DashboardDestination, b.ID, "other", expired, expired.Add(time.Minute))
		if err != nil || !ok || seq == 0 {
			t.Fatalf("ClaimCursor: %d %v %v", seq, ok, err)
		}
		held, err := w.db.FoldDashboard(w.ctx, b.ID, "other", 0, page, now.Add(time.Minute), loyalty.Fold())
		if err != nil || held {
			t.Fatalf("refolding a folded page: held %v, %v", held, err)
		}
		if err := w.db.ReleaseCursor(w.ctx, loyalty.DashboardDestination, b.ID, "other"); err != nil {
			t.Fatal(err)
		}
		check("after a refused refold")

		// A branch shows its own entries, and the business's new members
		// and referrals.
		harbour := loyalty.NewID()
		if _, err := w.db.SQL().ExecContext(w.ctx, `INSERT INTO branches (id, business_id, name, is_main, created_at)
			VALUES ($1, $2, 'Harbour', FALSE, $3)`, harbour, b.ID, now); err != nil {
			t.Fatal(err)
		}
		sale := run(`{"intent":"reward","amount":15,"branch":{"id":"` + harbour + `"},"customer":{"id":"` + late.ID + `"}}`)
		check("a sale at a branch, not folded")
		today := time.Now().In(loyalty.BusinessLocation("Pacific/Kiritimati")).Format(loyalty.DayFormat)
		for _, what := range []string{"not folded", "folded"} {
			if what == "folded" {
				if _, err := follower.Drain(w.ctx); err != nil {
					t.Fatal(err)
				}
			}
			all, err := dash.Summary(w.ctx, b.ID, today, today, "", console.ByMonth)
			if err != nil {
				t.Fatal(err)
			}
			at, err := dash.Summary(w.ctx, b.ID, today, today, harbour, console.ByDay)
			if err != nil {
				t.Fatal(err)
			}
			want := loyalty.Figures{MembersNew: all.MembersNew, Visits: 1, Revenue: 1500, PointsIssued: sale.Points, ReferralsPaid: 1}
			if at.Figures != want || len(all.Series) != 1 || all.Series[0].Label != today[:7] {
				t.Fatalf("%s: the branch shows %+v, want %+v; by month %+v", what, at.Figures, want, all.Series)
			}
		}
	})
}

// TestDashboardBackfillsHistory: a business whose history predates the
// event log (its events, sequence, cursor and rollups wiped, and the
// business listed as migration 00026 lists it) gets that history folded
// by the follower once, together with what happens after: a new customer
// and sale with their events, and a customer of the history deleted
// since (counted among those who joined, then taken off by the deletion's
// event). A customer deleted in the history counts nowhere.
func TestDashboardBackfillsHistory(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.farBusiness(t)
		loaded, ledger, run := w.ledgerOf(t, b)
		// The history.
		referrer := w.create(t, b, `{"email":"old-referrer@example.com"}`)
		run(`{"intent":"reward","amount":120,"customer":{"id":"` + referrer.ID + `"}}`)
		prog := w.referralProgram(t, b, true)
		referee := w.create(t, b, `{"email":"old-referee@example.com","referral":{"referral_program_id":`+strconv.FormatInt(prog, 10)+`,"referrer_id":"`+referrer.ID+`"}}`)
		run(`{"intent":"reward","amount":20,"customer":{"id":"` + referee.ID + `"}}`)
		cancelled := run(`{"intent":"reward","amount":30,"customer":{"id":"` + referrer.ID + `"}}`)
		if _, err := ledger.Cancel(w.ctx, loaded, cancelled.ID); err != nil {
			t.Fatal(err)
		}
		run(`{"intent":"redeem","points":7,"customer":{"id":"` + referrer.ID + `"}}`)
		gone := w.create(t, b, `{"email":"gone@example.com"}`)
		if err := w.svc.Delete(w.ctx, b, gone.ID); err != nil {
			t.Fatal(err)
		}
		leaving := w.create(t, b, `{"email":"leaving@example.com"}`)
		for _, q := range []string{`DELETE FROM events WHERE business_id = $1`, `DELETE FROM event_sequences WHERE business_id = $1`,
			`DELETE FROM event_cursors WHERE business_id = $1`, `DELETE FROM dashboard_days WHERE business_id = $1`,
			`DELETE FROM dashboard_members WHERE business_id = $1`, `INSERT INTO dashboard_backfills (business_id) VALUES ($1)`} {
			if _, err := w.db.SQL().ExecContext(w.ctx, q, b.ID); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		// After the upgrade.
		late := w.create(t, b, `{"email":"new@example.com"}`)
		run(`{"intent":"reward","amount":45,"customer":{"id":"` + late.ID + `"}}`)
		run(`{"intent":"reward","amount":10,"customer":{"id":"` + referrer.ID + `"}}`)
		if err := w.svc.Delete(w.ctx, b, leaving.ID); err != nil {
			t.Fatal(err)
		}

		follower := &events.Rollup{Store: w.db, Page: 3}
		dash := &console.DashboardService{Store: w.db}
		check := func(what string) {
			t.Helper()
			today := time.Now().In(loyalty.BusinessLocation("Pacific/Kiritimati")).Format(loyalty.DayFormat)
			got, err := dash.Summary(w.ctx, b.ID, today, today, "", console.ByDay)
			if err != nil {
				t.Fatal(err)
			}
			want := w.ledgerFigures(t, b)
			if got.Figures != want.Figures || got.Members != want.Members || got.Active30 != want.Active30 {
				t.Fatalf("%s: dashboard %+v members %d active %d\nledger    %+v members %d active %d",
					what, got.Figures, got.Members, got.Active30, want.Figures, want.Members, want.Active30)
			}
		}
		if _, err := follower.Drain(w.ctx); err != nil {
			t.Fatal(err)
		}
		check("history and events folded")
		var pending int
		if err := w.db.SQL().QueryRowContext(w.ctx, `SELECT COUNT(*) FROM dashboard_backfills`).Scan(&pending); err != nil || pending != 0 {
			t.Fatalf("businesses left to backfill: %d, %v", pending, err)
		}
		// On PostgreSQL, reading the dashboard numbered events the first
		// round could not fold yet; folding them changes nothing seen.
		if _, err := follower.Drain(w.ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := follower.Drain(w.ctx); err != nil || n != 0 {
			t.Fatalf("Drain again: %d, %v", n, err)
		}
		check("drained again")
	})
}
