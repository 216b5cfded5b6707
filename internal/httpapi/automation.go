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
	return listPage(w, r, rc, loyalty.AutomationListSpec, "automations", rc.svc.Automations.List,
		func(a loyalty.Automation) automationJSON { return toAutomationJSON(a, nil) })
}

func (s *Server) getAutomation(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return getOne(w, r, rc, rc.svc.Automations.Get, func(a loyalty.Automation) (automationJSON, error) { return withRuns(r, rc, a) })
}

// automationName reads the name of the automation the path names.
func automationName(r *http.Request, rc *reqCtx) func() (string, error) {
	return nameRead(r, rc, rc.svc.Automations.Get, func(a loyalty.Automation) string { return a.Name })
}

// saveAutomation creates an automation (POST) or changes one (PUT).
func (s *Server) saveAutomation(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.AutomationInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	return saveOne(s, w, r, rc, "Automation", in.Name, automationName(r, rc), func(svc loyalty.Services, id string) (loyalty.Automation, error) {
		return svc.Automations.Save(r.Context(), tenant(rc), id, in)
	}, func(a loyalty.Automation) (automationJSON, error) { return withRuns(r, rc, a) })
}

func (s *Server) deleteAutomation(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	return s.deleteOne(w, r, rc, "Automation", automationName(r, rc), func(svc loyalty.Services, id string) error {
		return svc.Automations.Delete(r.Context(), tenant(rc), id)
	})
}
