package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// lotJSON is one lot of a customer's points on the wire.
type lotJSON struct {
	ID            int64   `json:"id"`
	TransactionID *int64  `json:"transaction_id"` // the earning entry; null for the opening lot of an older balance
	State         string  `json:"state"`
	Earned        int64   `json:"earned"`
	Remaining     int64   `json:"remaining"`
	ActivatesAt   string  `json:"activates_at"`
	ExpiresAt     *string `json:"expires_at"`
}

func toLotJSON(l loyalty.PointLot) lotJSON {
	out := lotJSON{ID: l.ID, State: l.State, Earned: l.Earned, Remaining: l.Remaining, ActivatesAt: loyalty.FormatTime(l.ActivatesAt)}
	if l.EntryID != 0 {
		id := l.EntryID
		out.TransactionID = &id
	}
	if !l.ExpiresAt.IsZero() {
		at := loyalty.FormatTime(l.ExpiresAt)
		out.ExpiresAt = &at
	}
	return out
}

// customerPoints is GET /customers/{id}/points: the customer's lots,
// newest first, paged like the customer's transactions.
func (s *Server) customerPoints(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.LotListSpec)
	if err != nil {
		return err
	}
	customerID := r.PathValue("id")
	lots, total, err := rc.svc.Points.Lots(r.Context(), loyalty.Business{ID: rc.businessID}, customerID, lq)
	if err != nil {
		return err
	}
	data := make([]lotJSON, len(lots))
	for i, l := range lots {
		data[i] = toLotJSON(l)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data,
		"links": pageLinks("customers/"+strings.ToLower(customerID)+"/points", q, lq, total),
		"meta":  pageMeta(lq, len(data), total)})
	return nil
}

// clockJSON is a sandbox business's clock on the wire.
func clockJSON(c loyalty.SandboxClock, moved bool) map[string]any {
	out := map[string]any{"now": loyalty.FormatTime(c.Now), "offset_seconds": int64(c.Offset / time.Second)}
	if moved {
		out["settled"] = c.Settled
	}
	return map[string]any{"data": out}
}

// getSandboxClock is GET /sandbox/clock.
func (s *Server) getSandboxClock(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	c, err := rc.svc.Points.Clock(r.Context(), rc.businessID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, clockJSON(c, false))
	return nil
}

// moveSandboxClock is POST /sandbox/clock.
func (s *Server) moveSandboxClock(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.ClockInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	c, err := rc.svc.Points.MoveClock(r.Context(), rc.businessID, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, clockJSON(c, true))
	return nil
}

// flowsJSON is one row of the points report on the wire.
func flowsJSON(f loyalty.PointFlows) map[string]any {
	return map[string]any{"issued": f.Issued, "activated": f.Activated, "redeemed": f.Spent, "reversed": f.Reversed, "expired": f.Expired,
		"outstanding_active": f.Active, "outstanding_pending": f.Pending}
}

// pointsReport is GET /reports/points: the liability of the business's
// points by day or month.
func (s *Server) pointsReport(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	rep, err := rc.svc.Points.Report(r.Context(), loyalty.Business{ID: rc.businessID}, r.URL.Query())
	if err != nil {
		return err
	}
	data := make([]map[string]any, len(rep.Periods))
	for i, p := range rep.Periods {
		data[i] = flowsJSON(p.Flows)
		data[i]["start"], data[i]["end"] = loyalty.FormatTime(p.Start), loyalty.FormatTime(p.End)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "meta": map[string]any{
		"from": loyalty.FormatTime(rep.From), "to": loyalty.FormatTime(rep.To), "group": rep.Group, "time_zone": rep.TimeZone,
		"branch_id": loyalty.Nullable(rep.BranchID), "totals": flowsJSON(rep.Totals)}})
	return nil
}

// preferencesJSON is a person's preferences on the wire.
func preferencesJSON(p loyalty.PointsPreferences) map[string]any {
	return map[string]any{"data": map[string]any{"points_expiry_notices": p.ExpiryNotices}}
}

// preferences is GET /users/{user_id}/preferences.
func (u *users) preferences(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	p, err := uc.svc.Points.Preferences(r.Context(), uc.program, uc.userID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, preferencesJSON(p))
	return nil
}

// setPreferences is PATCH /users/{user_id}/preferences.
func (u *users) setPreferences(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	var in loyalty.PreferencesInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	p, err := uc.svc.Points.SetPreferences(r.Context(), uc.program, uc.userID, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, preferencesJSON(p))
	return nil
}
