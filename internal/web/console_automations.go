package web

import (
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The console's automations: the list read as sentences ("When a member
// has not visited for 60 days → send “We miss you” → give 50 points")
// with how often each ran and a switch to turn it on or off, the form,
// and deleting. The owner's and managers'; the use cases are
// console.MarketingDesk's, the rules the domain's.

func (s *Server) automationRoutes(mux *http.ServeMux) {
	if s.Marketing == nil {
		return
	}
	mux.Handle("GET /business/automations", s.console(loyalty.PermManage, s.automationList))
	mux.Handle("GET /business/automations/new", s.console(loyalty.PermManage, s.automationEdit))
	mux.Handle("POST /business/automations/new", s.console(loyalty.PermManage, s.automationSave))
	mux.Handle("GET /business/automations/{id}", s.console(loyalty.PermManage, s.automationEdit))
	mux.Handle("POST /business/automations/{id}", s.console(loyalty.PermManage, s.automationSave))
	mux.Handle("POST /business/automations/{id}/enabled", s.console(loyalty.PermManage, s.automationEnable))
	mux.Handle("GET /business/automations/{id}/delete", s.console(loyalty.PermManage, s.automationDeleteConfirm))
	mux.Handle("POST /business/automations/{id}/delete", s.console(loyalty.PermManage, s.automationDelete))
}

// automationNotices are the automation pages' notices after a change.
var automationNotices = map[string]string{
	"automation_saved":   "The automation was saved. It runs by itself while it is on.",
	"automation_on":      "The automation is on: it runs by itself.",
	"automation_off":     "The automation is off: nothing more runs, and steps that were waiting wait until it is on again.",
	"automation_deleted": "The automation was deleted. Steps that were waiting will not be done.",
}

// automationsPage is the body of the automations template.
type automationsPage struct {
	Rows  []automationRow
	Total int
}

// automationRow is an automation as the list shows it.
type automationRow struct {
	console.AutomationRow
	Runs string // how often it ran, in words
	Also string // its segment and period, in words
}

func (s *Server) automationList(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	rows, total, err := s.Marketing.Automations(r.Context(), a)
	if err != nil {
		return err
	}
	p := automationsPage{Total: total}
	for _, row := range rows {
		p.Rows = append(p.Rows, automationRowOf(row))
	}
	v := s.consoleView(r, a, "Automations")
	if n := automationNotices[r.URL.Query().Get("notice")]; n != "" {
		v.Notice = n
	}
	v.Data = p
	s.render(w, r, http.StatusOK, "automations", v)
	return nil
}

// automationRowOf lays out an automation for the list.
func automationRowOf(row console.AutomationRow) automationRow {
	out := automationRow{AutomationRow: row}
	started := row.Runs[loyalty.RunWaiting] + row.Runs[loyalty.RunDone] + row.Runs[loyalty.RunFailed]
	switch started {
	case 0:
		out.Runs = "Has not run yet"
	case 1:
		out.Runs = "Ran for 1 member"
	default:
		out.Runs = "Ran for " + thousands(int64(started)) + " members"
	}
	if n := row.Runs[loyalty.RunWaiting]; n > 0 {
		out.Runs += " · " + thousands(int64(n)) + " waiting for a step"
	}
	if n := row.Runs[loyalty.RunFailed]; n > 0 {
		out.Runs += " · " + thousands(int64(n)) + " not done"
	}
	switch {
	case row.SegmentID == 0:
		out.Also = "Every member"
	case row.Segment == "":
		out.Also = "Members of a deleted segment: nobody"
	default:
		out.Also = "Members of " + row.Segment
	}
	if row.PeriodDays > 0 {
		out.Also += " · not again within " + strconv.Itoa(row.PeriodDays) + " days"
	}
	return out
}

// automationFormPage is the body of the automation_form template.
type automationFormPage struct {
	Heading, Action string
	Delete          string // the link to delete it; "" for a new one
	Form            automationForm
	Triggers        []option
	Segments        []segmentOption
	Levels, Cards   []option
	Offers          []option
	StepTypes       []option
	Channels        []option
}

// automationEdit shows a new automation's form, or the one the path names.
func (s *Server) automationEdit(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	form := newAutomationForm()
	if id := r.PathValue("id"); id != "" {
		au, err := s.Marketing.Automation(r.Context(), a, id)
		if err != nil {
			return err
		}
		form = automationFormOf(au)
	}
	return s.renderAutomation(w, r, a, http.StatusOK, form, nil, "")
}

func (s *Server) renderAutomation(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, form automationForm,
	errs map[string][]string, msg string) error {
	c, err := s.Marketing.AutomationChoices(r.Context(), a)
	if err != nil {
		return err
	}
	p := automationFormPage{Heading: "New automation", Action: "/business/automations/new", Form: form,
		Triggers: []option{{loyalty.TriggerNoVisit, "When a member has not visited for a while"}, {loyalty.TriggerBirthday, "On a member’s birthday"},
			{loyalty.TriggerJoined, "Some days after a member joins"}, {loyalty.TriggerFirstPurchase, "On a member’s first purchase"},
			{loyalty.TriggerNthVisit, "On a member’s visit number…"}, {loyalty.TriggerExpiring, "When a member’s points are about to expire"}},
		StepTypes: []option{{"", "No step"}, {loyalty.ActionSend, "Send a message"}, {loyalty.ActionGivePoints, "Give points"},
			{loyalty.ActionCoupon, "Give a coupon"}, {loyalty.ActionAddTag, "Add a tag"}, {loyalty.ActionWait, "Wait"}},
		Channels: []option{{loyalty.CampaignEmail, "E-mail"}, {loyalty.CampaignSMS, "Text message"}, {loyalty.CampaignPush, "App notification"}}}
	if len(c.Levels) > 0 {
		p.Triggers = append(p.Triggers, option{loyalty.TriggerTierReached, "When a member reaches a tier level"},
			option{loyalty.TriggerTierLost, "When a member drops below a tier level"})
	}
	if len(c.Cards) > 0 {
		p.Triggers = append(p.Triggers, option{loyalty.TriggerCardCompleted, "When a member completes a punch card"})
	}
	if len(c.Offers) == 0 {
		p.StepTypes = append(p.StepTypes[:3], p.StepTypes[4:]...)
	}
	if id := r.PathValue("id"); id != "" {
		p.Heading, p.Action, p.Delete = "Edit automation", "/business/automations/"+id, "/business/automations/"+id+"/delete"
	}
	for _, seg := range c.Segments {
		p.Segments = append(p.Segments, segmentOption{Value: strconv.FormatInt(seg.ID, 10), Name: seg.Name, Count: peopleCount(seg.Count)})
	}
	for _, l := range c.Levels {
		p.Levels = append(p.Levels, option{strconv.FormatInt(l.ID, 10), l.Name})
	}
	for _, card := range c.Cards {
		p.Cards = append(p.Cards, option{strconv.FormatInt(card.ID, 10), card.Name})
	}
	for _, o := range c.Offers {
		p.Offers = append(p.Offers, option{strconv.FormatInt(o.ID, 10), o.Title})
	}
	v := s.consoleView(r, a, p.Heading)
	v.Fields, v.Error, v.Data, v.Script = errs, msg, p, "automations.js"
	s.render(w, r, status, "automation_form", v)
	return nil
}

// automationSave saves the posted automation; the Add a step button
// shows the form again with one more step, saving nothing.
func (s *Server) automationSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	form := postedAutomation(r.PostForm)
	if r.PostForm.Get("add_step") != "" {
		form.Shown = min(form.Shown+1, maxSteps)
		return s.renderAutomation(w, r, a, http.StatusOK, form, nil, "")
	}
	in, bad, rows := form.input()
	if len(bad) == 0 {
		_, err := s.Marketing.SaveAutomation(r.Context(), a, r.PathValue("id"), in)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = automationRefusal(e.Fields, form.Trigger, rows)
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return s.renderAutomation(w, r, a, http.StatusUnprocessableEntity, form, bad,
			"The automation was not saved: please correct what is marked below.")
	}
	redirect(w, "/business/automations?notice=automation_saved")
	return nil
}

// automationEnable turns an automation on or off from the list.
func (s *Server) automationEnable(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	on := r.PostForm.Get("enabled") == "on"
	if _, err := s.Marketing.EnableAutomation(r.Context(), a, r.PathValue("id"), on); err != nil {
		return err
	}
	if on {
		redirect(w, "/business/automations?notice=automation_on")
	} else {
		redirect(w, "/business/automations?notice=automation_off")
	}
	return nil
}

func (s *Server) automationDeleteConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	au, err := s.Marketing.Automation(r.Context(), a, r.PathValue("id"))
	if err != nil {
		return err
	}
	sentence, err := s.Marketing.AutomationSentence(r.Context(), a, au)
	if err != nil {
		return err
	}
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{
		Heading: "Delete the automation " + au.Name + "?",
		Message: sentence + ".",
		Effects: []string{"It stops running for good.", "Steps that are waiting for a member are not done.",
			"What it already gave and sent stays as it is."},
		Submit: "Delete automation", Back: "/business/automations/" + strconv.FormatInt(au.ID, 10)})
	return nil
}

func (s *Server) automationDelete(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return deleteConfirmed(w, r, func() error { return s.Marketing.DeleteAutomation(r.Context(), a, r.PathValue("id")) },
		"/business/automations?notice=automation_deleted")
}
