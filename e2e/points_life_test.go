package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// sandboxBusiness creates a sandbox business through `loyalty admin
// business create --sandbox`.
func (e *env) sandboxBusiness(t *testing.T) *business {
	t.Helper()
	b := &business{Email: "sandbox-" + e.unique() + "@shop.example", Password: "s3cret-pass-" + e.unique()}
	out := e.admin(t, "admin", "business", "create", "--name", "Sandbox Cafe", "--loyalty-type", "per_spend",
		"--owner-email", b.Email, "--owner-password", b.Password, "--sandbox")
	if out["sandbox"] != true {
		t.Fatalf("business create --sandbox: %v", out)
	}
	b.ID, b.Key, b.OwnerID = str(out["business_id"]), str(out["application_key"]), str(out["owner_id"])
	return b
}

// clockNow reads a sandbox business's clock.
func (c *client) clockNow(t *testing.T) time.Time {
	t.Helper()
	var r struct{ Data struct{ Now string } }
	c.get(t, "/sandbox/clock").want(t, http.StatusOK).decode(t, &r)
	return parseTime(t, r.Data.Now)
}

// moveClock moves a sandbox business's clock and returns the entries it
// settled on the way.
func (c *client) moveClock(t *testing.T, body map[string]any) int {
	t.Helper()
	var r struct{ Data struct{ Settled int } }
	c.do(t, http.MethodPost, "/sandbox/clock", body).want(t, http.StatusOK).decode(t, &r)
	return r.Data.Settled
}

// pointsBalance reads include=balance of a customer.
func (c *client) pointsBalance(t *testing.T, id string) map[string]any {
	t.Helper()
	return c.get(t, "/customers/"+id+"?include=balance").want(t, http.StatusOK).customer(t).Balance
}

// TestSandboxPointsLife drives a sandbox business through HTTP: the
// policy on /rules, a pending reward that activates when the clock moves
// past its window, expiring_points, a monthly expiry at the end of the
// month in Montreal, the lots, and the ledger's activation and expiry
// entries dated when they fell due; a live business has no clock to move.
func TestSandboxPointsLife(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		live := e.owner(t, e.biz)
		live.get(t, "/sandbox/clock").wantError(t, http.StatusForbidden, "sandbox")
		live.do(t, http.MethodPost, "/sandbox/clock", map[string]any{"advance": "P1D"}).wantError(t, http.StatusForbidden, "sandbox")

		sb := e.sandboxBusiness(t)
		a := e.owner(t, sb)
		// Start at a known time: 2031-01-15 12:00 in Montreal.
		start := time.Date(2031, 1, 15, 17, 0, 0, 0, time.UTC)
		if n := a.moveClock(t, map[string]any{"to": start.Format(time.RFC3339)}); n != 0 {
			t.Fatalf("moving an empty business's clock settled %d", n)
		}
		if got := a.clockNow(t); got.Sub(start) < 0 || got.Sub(start) > time.Minute {
			t.Fatalf("clock at %v, want about %v", got, start)
		}
		for body, field := range map[string]map[string]any{
			"to":      {"to": "2001-01-01T00:00:00+00:00"},
			"advance": {"advance": "P0D"},
		} {
			a.do(t, http.MethodPost, "/sandbox/clock", field).wantFields(t, body)
		}
		a.do(t, http.MethodPost, "/sandbox/clock", map[string]any{"advance": "thirty days"}).wantFields(t, "advance")

		var rules struct {
			Data map[string]any
			Meta struct {
				PointsPolicy string `json:"points_policy"`
			}
		}
		a.do(t, http.MethodPatch, "/rules", map[string]any{"points_expire_after": map[string]any{"months": 1}, "pending_days": 7,
			"time_zone": "America/Montreal"}).want(t, http.StatusOK).decode(t, &rules)
		if rules.Meta.PointsPolicy == "" || rules.Data["pending_days"] != 7.0 || rules.Data["time_zone"] != "America/Montreal" {
			t.Fatalf("PATCH /rules: %+v", rules)
		}
		a.do(t, http.MethodPatch, "/rules", map[string]any{"time_zone": "Nowhere/Land"}).wantFields(t, "time_zone")

		cu := a.createCustomer(t, map[string]any{"email": "life@sandbox.example"})
		var tx struct{ Data map[string]any }
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 120, "customer": map[string]any{"id": cu.ID}}).
			want(t, http.StatusOK).decode(t, &tx)
		if created := parseTime(t, str(tx.Data["created_at"])); created.Before(start) {
			t.Fatalf("the reward is dated %v, before the business's clock %v", created, start)
		}
		if bal := a.pointsBalance(t, cu.ID); bal["points"] != 0.0 || bal["pending_points"] != 120.0 || bal["expiring_at"] != nil {
			t.Fatalf("balance in the return window: %v", bal)
		}

		if n := a.moveClock(t, map[string]any{"advance": "P7D"}); n != 1 {
			t.Fatalf("7 days later: %d entries settled, want the activation", n)
		}
		bal := a.pointsBalance(t, cu.ID)
		// Earned in January, one month: valid through February, in Montreal (UTC-5).
		if bal["points"] != 120.0 || bal["pending_points"] != 0.0 || bal["expiring_points"] != 120.0 ||
			bal["expiring_at"] != "2031-03-01T05:00:00+00:00" {
			t.Fatalf("balance after the window: %v", bal)
		}
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "redeem", "points": 20, "customer": map[string]any{"id": cu.ID}}).
			want(t, http.StatusOK)

		// A minute before midnight, not a second: the sandbox clock runs on
		// in real time, and the points scheduler settles what falls due on
		// it by itself (a second is soon gone on a loaded machine).
		if n := a.moveClock(t, map[string]any{"to": "2031-03-01T04:59:00+00:00"}); n != 0 {
			t.Fatalf("at 23:59 on the last day: %d settled", n)
		}
		if n := a.moveClock(t, map[string]any{"advance": "PT1M"}); n != 1 {
			t.Fatalf("at midnight: %d settled, want the expiry", n)
		}
		if bal = a.pointsBalance(t, cu.ID); bal["points"] != 0.0 || bal["expired_points"] != 100.0 || bal["expiring_at"] != nil {
			t.Fatalf("balance after the expiry: %v", bal)
		}

		var lots struct {
			Data []map[string]any
			Meta map[string]any
		}
		a.get(t, "/customers/"+cu.ID+"/points").want(t, http.StatusOK).decode(t, &lots)
		if len(lots.Data) != 1 || lots.Data[0]["state"] != "expired" || lots.Data[0]["earned"] != 120.0 ||
			lots.Data[0]["remaining"] != 0.0 || lots.Data[0]["expires_at"] != "2031-03-01T05:00:00+00:00" {
			t.Fatalf("lots: %v", lots.Data)
		}
		var hist struct{ Data []map[string]any }
		a.get(t, "/customers/"+cu.ID+"/transactions?transaction_type=in|1017,1018").want(t, http.StatusOK).decode(t, &hist)
		if len(hist.Data) != 2 || hist.Data[0]["transaction_type"] != 1018.0 || hist.Data[0]["points"] != -100.0 ||
			hist.Data[0]["created_at"] != "2031-03-01T05:00:00+00:00" || hist.Data[1]["pending_points"] != -120.0 {
			t.Fatalf("activation and expiry entries: %v", hist.Data)
		}
		wantType(t, hist.Data[0], 1018)
		wantType(t, hist.Data[1], 1017)

		// The app's view: the same balance, and the preference for notices.
		e.register(t, sb.Key, map[string]any{"email": "app@sandbox.example", "pin_code": 2468})
		u := e.asUser(t, e.userApp(t), sb.Key, "app@sandbox.example", "2468")
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "amount": 30,
			"customer": map[string]any{"email": "app@sandbox.example"}}).want(t, http.StatusOK)
		var me struct{ Included map[string]map[string]any }
		u.get(t, "/users/me?include=balance").want(t, http.StatusOK).decode(t, &me)
		if b := me.Included["balance"]; b["pending_points"] != 30.0 || b["points"] != 0.0 || b["expired_points"] != 0.0 {
			t.Fatalf("the user's balance: %v", b)
		}
		var prefs struct{ Data map[string]any }
		u.get(t, "/users/me/preferences").want(t, http.StatusOK).decode(t, &prefs)
		if prefs.Data["points_expiry_notices"] != true {
			t.Fatalf("preferences: %v", prefs.Data)
		}
		u.do(t, http.MethodPatch, "/users/me/preferences", map[string]any{"points_expiry_notices": false}).want(t, http.StatusOK).decode(t, &prefs)
		if prefs.Data["points_expiry_notices"] != false {
			t.Fatalf("preferences after turning notices off: %v", prefs.Data)
		}
		u.do(t, http.MethodPatch, "/users/me/preferences", map[string]any{"points_expiry_notices": "no"}).wantFields(t, "points_expiry_notices")
	})
}

// TestSandboxYearReport drives a sandbox business through a year with
// its clock: a reward every month, points that expire at the end of the
// next month, and the liability report, whose totals equal the sums of
// the customer's entries read through the API.
func TestSandboxYearReport(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.sandboxBusiness(t))
		a.moveClock(t, map[string]any{"to": "2031-01-01T12:00:00+00:00"})
		a.do(t, http.MethodPatch, "/rules", map[string]any{"points_expire_after": map[string]any{"months": 1}, "expiry_notice_days": 7}).
			want(t, http.StatusOK)
		cu := a.createCustomer(t, map[string]any{"email": "year@sandbox.example"})
		ref := map[string]any{"id": cu.ID}
		settled := 0
		for month := range 12 {
			a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 100 + month, "customer": ref}).
				want(t, http.StatusOK)
			a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "redeem", "points": 30, "customer": ref}).
				want(t, http.StatusOK)
			settled += a.moveClock(t, map[string]any{"advance": "P1M"})
		}
		if settled != 11 {
			t.Fatalf("%d expiries over the year, want 11 (the last lot is still valid)", settled)
		}
		var hist struct {
			Data []struct {
				Type   float64 `json:"transaction_type"`
				Points float64 `json:"points"`
			}
		}
		a.get(t, "/customers/"+cu.ID+"/transactions?per_page=100").want(t, http.StatusOK).decode(t, &hist)
		sums := map[string]float64{}
		for _, x := range hist.Data {
			switch {
			case x.Type == 1018:
				sums["expired"] -= x.Points
			case x.Points > 0:
				sums["issued"] += x.Points
			case x.Points < 0:
				sums["redeemed"] -= x.Points
			}
			sums["outstanding_active"] += x.Points
		}
		var rep struct {
			Data []map[string]any
			Meta struct{ Totals map[string]float64 }
		}
		a.get(t, "/reports/points?from=2031-01-01&to=2032-01-01").want(t, http.StatusOK).decode(t, &rep)
		if len(rep.Data) != 13 { // the last expiry falls at midnight on January 1st
			t.Fatalf("%d months in the report", len(rep.Data))
		}
		for k, v := range sums {
			if rep.Meta.Totals[k] != v {
				t.Errorf("report %s = %v, entries sum to %v", k, rep.Meta.Totals[k], v)
			}
		}
		if bal := a.pointsBalance(t, cu.ID); bal["points"] != sums["outstanding_active"] || bal["expired_points"] != sums["expired"] {
			t.Errorf("balance %v, entries %v", bal, sums)
		}
		// One expiring-soon e-mail per lot that expired, each a week before.
		rows, err := e.app.DB.SQL().Query(`SELECT body FROM outbox WHERE recipient = 'year@sandbox.example' AND subject = 'Your points expire soon'
			ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var bodies []string
		for rows.Next() {
			var b string
			rows.Scan(&b)
			bodies = append(bodies, b)
		}
		if len(bodies) != 11 || !strings.Contains(bodies[0], "Points: 40\nLast day: 2031-02-28") {
			t.Errorf("%d expiring-soon messages, want 11; first: %q", len(bodies), bodies)
		}
	})
}
