package loyalty_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// policy sets a business's points policy through PATCH /rules' service and
// returns the business as a reward reads it (with its rules loaded).
func (w *world) policy(tb testing.TB, b loyalty.Business, body string) loyalty.Business {
	tb.Helper()
	var in loyalty.RulesInput
	decodeJSON(tb, body, &in)
	if _, err := w.ledger().UpdateRules(w.ctx, b, in); err != nil {
		tb.Fatalf("UpdateRules %s: %v", body, err)
	}
	lb, err := w.db.BusinessWithRules(w.ctx, b.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return lb
}

// lot is a row of point_lots as the tests read it.
type lot struct {
	id, earned, remaining int64
	state                 string
}

// lotsOf returns a customer's lots, oldest first.
func (w *world) lotsOf(tb testing.TB, b loyalty.Business, customerID string) []lot {
	tb.Helper()
	rows, err := w.db.SQL().QueryContext(w.ctx, `SELECT id, earned, remaining, state FROM point_lots
		WHERE business_id = $1 AND customer_id = $2 ORDER BY id`, b.ID, customerID)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []lot
	for rows.Next() {
		var l lot
		if err := rows.Scan(&l.id, &l.earned, &l.remaining, &l.state); err != nil {
			tb.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// checkPoints holds a customer to the rules of points: the balance is the
// sum of the ledger (active and pending apart), the active lots add up to
// the active balance and the pending ones to the pending balance, the
// expired points to the expiry entries, and nothing is negative.
func (w *world) checkPoints(tb testing.TB, b loyalty.Business, customerID string) loyalty.Balance {
	tb.Helper()
	c := w.get(tb, b, customerID)
	var total, pending, expired, active, pendingLots int64
	err := w.db.SQL().QueryRowContext(w.ctx, `SELECT COALESCE(SUM(points), 0), COALESCE(SUM(pending_points), 0),
		COALESCE(SUM(CASE WHEN type_code = 1018 THEN -points ELSE 0 END), 0)
		FROM transactions WHERE business_id = $1 AND customer_id = $2`, b.ID, customerID).Scan(&total, &pending, &expired)
	if err != nil {
		tb.Fatal(err)
	}
	err = w.db.SQL().QueryRowContext(w.ctx, `SELECT COALESCE(SUM(CASE WHEN state = 'active' THEN remaining ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN state = 'pending' THEN remaining ELSE 0 END), 0)
		FROM point_lots WHERE business_id = $1 AND customer_id = $2`, b.ID, customerID).Scan(&active, &pendingLots)
	if err != nil {
		tb.Fatal(err)
	}
	bal := c.Balance
	switch {
	case bal.Points < 0 || bal.Pending < 0 || bal.Expired < 0:
		tb.Fatalf("a negative balance: %+v", bal)
	case bal.Points+bal.Pending != total || bal.Pending != pending:
		tb.Fatalf("balance %d active + %d pending, ledger %d of which %d pending", bal.Points, bal.Pending, total, pending)
	case active != bal.Points || pendingLots != bal.Pending:
		tb.Fatalf("lots hold %d active and %d pending, balance %d and %d", active, pendingLots, bal.Points, bal.Pending)
	case expired != bal.Expired:
		tb.Fatalf("expiry entries took %d, expired_points %d", expired, bal.Expired)
	}
	for _, l := range w.lotsOf(tb, b, customerID) {
		// An active lot holds points; a spent, expired or cancelled one none.
		if l.remaining < 0 || l.remaining > l.earned || (l.state == "active") != (l.remaining > 0 && l.state != "pending") {
			tb.Fatalf("lot %+v", l)
		}
	}
	return bal
}

// TestPointsPolicyRules: PATCH /rules sets and reads back the policy, and
// refuses bad values naming the field.
func TestPointsPolicyRules(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		r, err := w.ledger().Rules(w.ctx, b)
		if err != nil || !r.PointsExpireAfter.Never() || r.PendingDays != 0 || r.TimeZone != "UTC" {
			t.Fatalf("defaults: %+v, %v", r, err)
		}
		w.policy(t, b, `{"points_expire_after":{"months":12},"pending_days":14,"time_zone":"America/Montreal"}`)
		r, _ = w.ledger().Rules(w.ctx, b)
		if r.PointsExpireAfter != (loyalty.PointsExpiry{Unit: "months", Count: 12}) || r.PendingDays != 14 || r.TimeZone != "America/Montreal" {
			t.Fatalf("after PATCH: %+v", r)
		}
		w.policy(t, b, `{"points_expire_after":null}`)
		if r, _ = w.ledger().Rules(w.ctx, b); !r.PointsExpireAfter.Never() || r.PendingDays != 14 {
			t.Fatalf("null expiry: %+v", r)
		}
		for body, field := range map[string]string{
			`{"points_expire_after":{"days":0}}`:            "points_expire_after.days",
			`{"points_expire_after":{"months":121}}`:        "points_expire_after.months",
			`{"points_expire_after":{"days":1,"months":1}}`: "points_expire_after",
			`{"points_expire_after":{}}`:                    "points_expire_after",
			`{"pending_days":-1}`:                           "pending_days",
			`{"pending_days":366}`:                          "pending_days",
			`{"time_zone":"Mars/Olympus"}`:                  "time_zone",
			`{"time_zone":""}`:                              "time_zone",
		} {
			var in loyalty.RulesInput
			decodeJSON(t, body, &in)
			_, err := w.ledger().UpdateRules(w.ctx, b, in)
			wantInvalid(t, err, field)
		}
	})
}

// TestLotTerms: expiry is the end of the day or month in the business's
// time zone, the same wall-clock end across a change of daylight saving
// time; a reward is pending for pending_days, other earnings are not.
func TestLotTerms(t *testing.T) {
	mtl := loyalty.Rules{TimeZone: "America/Montreal", PointsExpireAfter: loyalty.PointsExpiry{Unit: "days", Count: 1}, PendingDays: 2}
	// 2027-03-13 22:30 in Montreal (EST, UTC-5), the day before DST starts.
	earned := time.Date(2027, 3, 14, 3, 30, 0, 0, time.UTC)
	terms := mtl.Terms(loyalty.IntentReward, earned)
	// Valid through 2027-03-14 23:59:59 EDT (UTC-4): expires at 2027-03-15 04:00 UTC.
	if want := time.Date(2027, 3, 15, 4, 0, 0, 0, time.UTC); !terms.ExpiresAt.Equal(want) {
		t.Errorf("Montreal expiry across DST: %v, want %v", terms.ExpiresAt, want)
	}
	// Two calendar days later at the same wall-clock time, now in EDT.
	if want := time.Date(2027, 3, 16, 2, 30, 0, 0, time.UTC); !terms.ActivatesAt.Equal(want) {
		t.Errorf("Montreal activation across DST: %v, want %v", terms.ActivatesAt, want)
	}
	if w := mtl.Terms(loyalty.IntentWelcome, earned); !w.ActivatesAt.Equal(earned) {
		t.Errorf("welcome points pending: %v", w.ActivatesAt)
	}
	kol := loyalty.Rules{TimeZone: "Asia/Kolkata", PointsExpireAfter: loyalty.PointsExpiry{Unit: "months", Count: 1}}
	// 2027-01-31 23:59:59 in Kolkata (UTC+5:30) is still January there.
	late := time.Date(2027, 1, 31, 18, 29, 59, 0, time.UTC)
	if got, want := kol.Terms(loyalty.IntentReward, late).ExpiresAt, time.Date(2027, 2, 28, 18, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Kolkata 23:59:59: expires %v, want %v (end of February there)", got, want)
	}
	// One second later it is February there: the end of March.
	if got, want := kol.Terms(loyalty.IntentReward, late.Add(time.Second)).ExpiresAt, time.Date(2027, 3, 31, 18, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Kolkata 00:00:00: expires %v, want %v", got, want)
	}
	if never := (loyalty.Rules{}).Terms(loyalty.IntentReward, late); !never.ExpiresAt.IsZero() || !never.ActivatesAt.Equal(late) {
		t.Errorf("no policy: %+v", never)
	}
}

// TestRedeemTakesFirstExpiringLotFirst: points earned under a long expiry,
// then a short one, then under no expiry at all are spent first-expiring
// first (the second lot before the first), the never-expiring one last;
// cancelling the redemption gives each lot back what it gave.
func TestRedeemTakesFirstExpiringLotFirst(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		now := time.Date(2027, 2, 25, 23, 0, 0, 0, time.UTC)
		w.clock(&now)
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"fifo@example.com"}`)
		ref := `"customer":{"id":"` + c.ID + `"}`
		lb := w.policy(t, b, `{"points_expire_after":{"months":12}}`)
		w.do(t, lb, `{"intent":"reward","points":100,`+ref+`}`)
		lb = w.policy(t, b, `{"points_expire_after":{"days":10}}`)
		w.do(t, lb, `{"intent":"reward","points":50,`+ref+`}`)
		lb = w.policy(t, b, `{"points_expire_after":null}`)
		w.do(t, lb, `{"intent":"adjust_points_balance","points":30,`+ref+`}`)
		// The balance says what expires next: the 10-day lot.
		bal := w.get(t, b, c.ID).Balance
		ten := time.Date(2027, 3, 8, 0, 0, 0, 0, time.UTC) // valid through February 25 + 10 days

		if bal.Points != 180 || bal.Expiring != 50 || !bal.ExpiringAt.Equal(ten) {
			t.Fatalf("balance %+v, want 180 with 50 expiring at %v", bal, ten)
		}

		redeem := w.do(t, lb, `{"intent":"redeem","points":120,`+ref+`}`)
		lots := w.lotsOf(t, b, c.ID)
		if len(lots) != 3 || lots[0].remaining != 30 || lots[1].remaining != 0 || lots[1].state != "spent" || lots[2].remaining != 30 {
			t.Fatalf("after redeeming 120 of 100 (12 months), 50 (10 days), 30 (never): %+v", lots)
		}
		w.do(t, lb, `{"intent":"adjust_points_balance","points":-40,`+ref+`}`)
		if lots = w.lotsOf(t, b, c.ID); lots[0].remaining != 0 || lots[2].remaining != 20 {
			t.Fatalf("an adjustment down takes like a redemption: %+v", lots)
		}
		w.checkPoints(t, b, c.ID)

		if _, err := w.ledger().Cancel(w.ctx, b, redeem.ID); err != nil {
			t.Fatal(err)
		}
		if lots = w.lotsOf(t, b, c.ID); lots[0].remaining != 70 || lots[1].remaining != 50 || lots[1].state != "active" || lots[2].remaining != 20 {
			t.Fatalf("cancelling the redemption gives each lot back its points: %+v", lots)
		}
		if bal = w.checkPoints(t, b, c.ID); bal.Points != 140 {
			t.Fatalf("balance %+v, want 140", bal)
		}
	})
}

// TestRedeemAcrossManyLots: a redemption larger than the first lots the
// store reads (it reads a few, then more) takes from every lot in order,
// and cancelling it gives each back what it gave.
func TestRedeemAcrossManyLots(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"many-lots@example.com"}`)
		ref := `"customer":{"id":"` + c.ID + `"}`
		for range 9 {
			w.do(t, b, `{"intent":"reward","points":10,`+ref+`}`)
		}
		redeem := w.do(t, b, `{"intent":"redeem","points":75,`+ref+`}`)
		lots := w.lotsOf(t, b, c.ID)
		want := []int64{0, 0, 0, 0, 0, 0, 0, 5, 10}
		if len(lots) != len(want) {
			t.Fatalf("%d lots, want %d", len(lots), len(want))
		}
		for i, l := range lots {
			if l.remaining != want[i] || (want[i] == 0) != (l.state == "spent") {
				t.Fatalf("after redeeming 75 of nine lots of 10: lot %d is %+v (all %+v), want %d left", i, l, lots, want[i])
			}
		}
		w.checkPoints(t, b, c.ID)
		if _, err := w.ledger().Cancel(w.ctx, b, redeem.ID); err != nil {
			t.Fatal(err)
		}
		for i, l := range w.lotsOf(t, b, c.ID) {
			if l.remaining != 10 || l.state != "active" {
				t.Fatalf("after cancelling, lot %d is %+v, want 10 active", i, l)
			}
		}
		if bal := w.checkPoints(t, b, c.ID); bal.Points != 90 {
			t.Fatalf("balance %+v, want 90", bal)
		}
	})
}

// TestReturnInPendingWindow: a reward's points are pending for
// pending_days; a return within the window takes them back from the
// pending lot, newest first, without touching active points; a
// cancellation of a pending reward cancels its lot.
func TestReturnInPendingWindow(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"window@example.com"}`)
		ref := `"customer":{"id":"` + c.ID + `"}`
		lb := w.policy(t, b, `{"points_expire_after":null}`)
		w.do(t, lb, `{"intent":"adjust_points_balance","points":500,`+ref+`}`)
		lb = w.policy(t, b, `{"pending_days":14}`)

		// The quick path (AppendAlone) and the transactional one alike.
		first := w.do(t, lb, `{"intent":"reward","amount":80,`+ref+`}`)
		second := w.do(t, b, `{"intent":"reward","amount":60,`+ref+`}`)
		if first.Pending != 80 || first.Balance.Points != 500 || second.Balance.Pending != 140 || second.Balance.Points != 500 {
			t.Fatalf("pending rewards: %+v / %+v", first, second)
		}
		if first.TierPoints != 0 {
			t.Fatalf("a pending reward counted %d tier points before it activates", first.TierPoints)
		}
		if _, _, err := w.ledger().Create(w.ctx, lb, txInput(t, `{"intent":"redeem","points":501,`+ref+`}`), nil); loyalty.ErrorCode(err) != loyalty.EInvalid {
			t.Fatalf("pending points were spendable: %v", err)
		}

		ret := w.do(t, lb, `{"intent":"return","amount":70,`+ref+`}`)
		if ret.Points != -70 || ret.Pending != -70 || ret.Balance.Points != 500 || ret.Balance.Pending != 70 || ret.TierPoints != 0 {
			t.Fatalf("a return in the window: %+v", ret)
		}
		lots := w.lotsOf(t, b, c.ID)
		if lots[1].remaining != 70 || lots[2].remaining != 0 || lots[2].state != "cancelled" || lots[0].remaining != 500 {
			t.Fatalf("the return takes from the newest pending lot first: %+v", lots)
		}
		w.checkPoints(t, b, c.ID)

		cancel, err := w.ledger().Cancel(w.ctx, b, first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cancel.Points != -80 || cancel.Pending != -70 || cancel.Balance.Points != 490 || cancel.Balance.Pending != 0 {
			t.Fatalf("cancelling the partly returned pending reward: %+v", cancel)
		}
		w.checkPoints(t, b, c.ID)
		if _, err := w.ledger().Cancel(w.ctx, b, ret.ID); err != nil {
			t.Fatal(err)
		}
		// The returned points go back to the lots they came from, the
		// cancelled one being gone: a new active lot.
		w.checkPoints(t, b, c.ID)
	})
}

func decodeJSON(tb testing.TB, body string, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		tb.Fatalf("decode %s: %v", body, err)
	}
}
