package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// automationJSON is an automation; Runs counts its runs by state, given
// by the calls that read or write one automation.
type automationJSON struct {
	ID          int64                      `json:"id"`
	Name        string                     `json:"name"`
	Enabled     bool                       `json:"enabled"`
	Trigger     loyalty.AutomationTrigger  `json:"trigger"`
	SegmentID   *int64                     `json:"segment_id"`
	Actions     []loyalty.AutomationAction `json:"actions"`
	PeriodDays  int                        `json:"period_days"`
	Description string                     `json:"description"`
	Runs        map[string]int             `json:"runs,omitempty"`
	CreatedAt   string                     `json:"created_at"`
	UpdatedAt   string                     `json:"updated_at"`
}

func toAutomationJSON(a loyalty.Automation, runs map[string]int) automationJSON {
	out := automationJSON{ID: a.ID, Name: a.Name, Enabled: a.Enabled, Trigger: a.Trigger, Actions: a.Actions,
		PeriodDays: a.PeriodDays, Description: a.Describe(), Runs: runs,
		CreatedAt: loyalty.FormatTime(a.CreatedAt), UpdatedAt: loyalty.FormatTime(a.UpdatedAt)}
	if a.SegmentID != 0 {
		id := a.SegmentID
		out.SegmentID = &id
	}
	if out.Actions == nil {
		out.Actions = []loyalty.AutomationAction{}
	}
	return out
}

// withRuns is an automation with its runs counted.
func withRuns(r *http.Request, rc *reqCtx, a loyalty.Automation) (automationJSON, error) {
	runs, err := rc.svc.Automations.Runs(r.Context(), a)
	if err != nil {
		return automationJSON{}, err
	}
	return toAutomationJSON(a, runs), nil
}

func (s *Server) listAutomations(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	lq, err := loyalty.ParseListQuery(q, loyalty.AutomationListSpec)
	if err != nil {
		return err
	}
	list, total, err := rc.svc.Automations.List(r.Context(), tenant(rc), lq)
	if err != nil {
		return err
	}
	data := make([]automationJSON, len(list))
	for i, a := range list {
		data[i] = toAutomationJSON(a, nil)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("automations", q, lq, len(list), total),
		"meta": map[string]int{"total": total}})
	return nil
}

func (s *Server) getAutomation(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	a, err := rc.svc.Automations.Get(r.Context(), tenant(rc), r.PathValue("id"))
	if err != nil {
		return err
	}
	out, err := withRuns(r, rc, a)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// saveAutomation creates an automation (POST) or changes one (PUT).
func (s *Server) saveAutomation(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.AutomationInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	id := r.PathValue("id")
	a, err := auditedOf(s, r, rc, saved(id), namedOrRead("Automation", in.Name, id, func() (string, error) {
		a, err := rc.svc.Automations.Get(r.Context(), tenant(rc), id)
		return a.Name, err
	}), func(svc loyalty.Services) (loyalty.Automation, error) {
		return svc.Automations.Save(r.Context(), tenant(rc), id, in)
	})
	if err != nil {
		return err
	}
	out, err := withRuns(r, rc, a)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if id == "" {
		status = http.StatusCreated
	}
	writeJSON(w, status, map[string]any{"data": out})
	return nil
}

func (s *Server) deleteAutomation(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id := r.PathValue("id")
	if err := s.audited(r, rc, loyalty.AuditProgramDeleted, named("Automation", nameOf(func() (string, error) {
		a, err := rc.svc.Automations.Get(r.Context(), tenant(rc), id)
		return a.Name, err
	}), id), func(svc loyalty.Services) error {
		return svc.Automations.Delete(r.Context(), tenant(rc), id)
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
