package e2e

import (
	"net/http"
	"testing"
)

// TestSandboxNoticesInTokyo (issue 35's lifecycle cases): a sandbox business in Asia/Tokyo whose points
// expire at the end of the next month, told 7 days before: moving the
// clock past the month end sends one expiring-soon message per expiry
// date (two lots of one month expire together: one message), and expires
// them; the points report counts a cancelled pending reward and a return
// as reversed, not as redeemed.
func TestSandboxNoticesInTokyo(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.sandboxBusiness(t))
		a.moveClock(t, map[string]any{"to": "2031-03-10T12:00:00+09:00"})
		a.do(t, http.MethodPatch, "/rules", map[string]any{"points_expire_after": map[string]any{"months": 1}, "expiry_notice_days": 7,
			"time_zone": "Asia/Tokyo", "pending_days": 0}).want(t, http.StatusOK)
		cu := a.createCustomer(t, map[string]any{"email": "tokyo@sandbox.example"})
		ref := map[string]any{"id": cu.ID}
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 40, "customer": ref}).want(t, http.StatusOK)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 60, "customer": ref}).want(t, http.StatusOK)
		before := e.mailCount(t, "tokyo@sandbox.example")
		// The lots expire at the end of April in Tokyo; the notice falls on April 24.
		a.moveClock(t, map[string]any{"to": "2031-05-02T09:00:00+09:00"})
		if n := e.mailCount(t, "tokyo@sandbox.example") - before; n != 1 {
			t.Errorf("%d expiring-soon messages after the month end in Tokyo, want 1", n)
		}
		if bal := a.pointsBalance(t, cu.ID); bal["points"] != float64(0) || bal["expired_points"] != float64(100) {
			t.Errorf("balance after the expiry %v, want 100 expired", bal)
		}

		// A reward cancelled while pending and another returned are reversed,
		// not redeemed; a redemption of 30 is the only one.
		a.do(t, http.MethodPatch, "/rules", map[string]any{"pending_days": 14}).want(t, http.StatusOK)
		var r1, r2 struct{ Data struct{ ID int64 } }
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 50, "customer": ref}).
			want(t, http.StatusOK).decode(t, &r1)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 50, "customer": ref}).
			want(t, http.StatusOK).decode(t, &r2)
		a.do(t, http.MethodDelete, "/transactions/"+itoa64(r1.Data.ID), nil).want(t, http.StatusNoContent)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 40, "customer": ref}).want(t, http.StatusOK)
		a.do(t, http.MethodPatch, "/rules", map[string]any{"pending_days": 0}).want(t, http.StatusOK)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "reward", "points": 30, "customer": ref}).want(t, http.StatusOK)
		a.do(t, http.MethodPost, "/transactions", map[string]any{"intent": "redeem", "points": 30, "customer": ref}).want(t, http.StatusOK)
		a.do(t, http.MethodDelete, "/transactions/"+itoa64(r2.Data.ID), nil).want(t, http.StatusNoContent)
		var rep struct {
			Meta struct{ Totals map[string]float64 }
		}
		a.get(t, "/reports/points?group=month&from=2031-05-01&to=2031-06-01").want(t, http.StatusOK).decode(t, &rep)
		// May opened with the 100 points that expired at its first instant.
		if tot := rep.Meta.Totals; tot["redeemed"] != 30 || tot["reversed"] != 100 || tot["issued"] != 170 ||
			100+tot["issued"]-tot["redeemed"]-tot["reversed"]-tot["expired"] != tot["outstanding_active"]+tot["outstanding_pending"] {
			t.Errorf("report totals %v, want 170 issued, 30 redeemed, 100 reversed, and the flows adding up", tot)
		}
	})
}
