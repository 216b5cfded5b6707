package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The program's setup pages, for the owner and managers: the earning
// rules, and for each part of the program (setupKinds) a list, a form to
// create, a form to edit, and enabling or disabling.

func (s *Server) programRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/program", s.console(loyalty.PermManage, s.programHome))
	mux.Handle("GET /business/program/rules", s.console(loyalty.PermManage, s.rulesForm))
	mux.Handle("POST /business/program/rules", s.console(loyalty.PermManage, s.rulesSave))
	mux.Handle("GET /business/program/{kind}", s.console(loyalty.PermManage, s.setupList))
	mux.Handle("GET /business/program/{kind}/new", s.console(loyalty.PermManage, s.setupForm))
	mux.Handle("POST /business/program/{kind}", s.console(loyalty.PermManage, s.setupSave))
	mux.Handle("GET /business/program/{kind}/{id}", s.console(loyalty.PermManage, s.setupForm))
	mux.Handle("POST /business/program/{kind}/{id}", s.console(loyalty.PermManage, s.setupSave))
	mux.Handle("GET /business/program/{kind}/{id}/disable", s.console(loyalty.PermManage, s.setupDisableConfirm))
	mux.Handle("POST /business/program/{kind}/{id}/disable", s.console(loyalty.PermManage, s.setupToggle(false)))
	mux.Handle("POST /business/program/{kind}/{id}/enable", s.console(loyalty.PermManage, s.setupToggle(true)))
}

// programPage is the body of the program template.
type programPage struct {
	Kinds []*setupKind
}

func (s *Server) programHome(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	v := s.consoleView(r, a, "Program")
	v.Data = programPage{Kinds: setupKinds}
	s.render(w, r, http.StatusOK, "program", v)
	return nil
}

// kindOf returns the part of the program the path names.
func kindOf(r *http.Request) (*setupKind, error) {
	for _, k := range setupKinds {
		if k.Path == r.PathValue("kind") {
			return k, nil
		}
	}
	return nil, loyalty.Errorf(loyalty.ENotFound, "Not found.")
}

// setupListPage is the body of the setup_list template.
type setupListPage struct {
	Kind *setupKind
	Rows []setupRow
}

func (s *Server) setupList(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	k, err := kindOf(r)
	if err != nil {
		return err
	}
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	rows, err := k.list(r.Context(), s, b)
	if err != nil {
		return err
	}
	v := s.consoleView(r, a, k.Title)
	v.Data = setupListPage{Kind: k, Rows: rows}
	s.render(w, r, http.StatusOK, "setup_list", v)
	return nil
}

// setupFormPage is the body of the setup_form template.
type setupFormPage struct {
	Heading, Action, Back, Submit string
	Rows                          []fieldRow
}

// location is the business's time zone, for the forms' dates.
func (s *Server) location(r *http.Request, a loyalty.Actor) (*time.Location, error) {
	p, err := s.Console.Profiles.Profile(r.Context(), a.BusinessID)
	return p.Location(), err
}

// branchOptions are the business's branches as a form offers them.
func (s *Server) branchOptions(r *http.Request, b loyalty.Business) ([]option, error) {
	all, err := s.Program.Services.Branches.All(r.Context(), b)
	out := make([]option, len(all))
	for i, br := range all {
		out[i] = option{br.ID, br.Name}
	}
	return out, err
}

func (s *Server) setupForm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	k, err := kindOf(r)
	if err != nil {
		return err
	}
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	form, chosen := map[string]string{"enabled": "true"}, []string(nil)
	if id := r.PathValue("id"); id != "" {
		loc, err := s.location(r, a)
		if err != nil {
			return err
		}
		if form, chosen, err = k.get(r.Context(), s, b, id, loc); err != nil {
			return err
		}
	}
	return s.renderSetup(w, r, a, b, k, http.StatusOK, form, chosen, nil, "")
}

func (s *Server) renderSetup(w http.ResponseWriter, r *http.Request, a loyalty.Actor, b loyalty.Business, k *setupKind, status int,
	form map[string]string, chosen []string, errs map[string][]string, msg string) error {
	branches, err := s.branchOptions(r, b)
	if err != nil {
		return err
	}
	p := setupFormPage{Heading: "New " + k.One, Action: "/business/program/" + k.Path, Back: "/business/program/" + k.Path, Submit: "Create " + k.One}
	if id := r.PathValue("id"); id != "" {
		p.Heading, p.Action, p.Submit = "Edit "+k.One, p.Action+"/"+id, "Save "+k.One
	}
	p.Rows = drawFields(k.Fields, form, chosen, errs, branches)
	v := s.consoleView(r, a, p.Heading)
	v.Error = msg
	v.Data = p
	s.render(w, r, status, "setup_form", v)
	return nil
}

// setupName is how the audit log names an object of a posted form.
func setupName(f url.Values, id string) string {
	for _, n := range []string{"title", "name", "rule_name", "tier_levels.0.name"} {
		if v := f.Get(n); v != "" {
			return v
		}
	}
	return id
}

func (s *Server) setupSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	k, err := kindOf(r)
	if err != nil {
		return err
	}
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	loc, err := s.location(r, a)
	if err != nil {
		return err
	}
	f := r.PostForm
	body, bad := formBody(k.Fields, f, loc)
	if len(bad) == 0 {
		err = k.save(r.Context(), s, a, r.PathValue("id"), setupName(f, r.PathValue("id")), body)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = e.Fields
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		form := map[string]string{}
		for key := range f {
			form[key] = f.Get(key)
		}
		return s.renderSetup(w, r, a, b, k, http.StatusUnprocessableEntity, form, f["branches"], bad, fieldsMessage(bad, k.Fields))
	}
	redirect(w, "/business/program/"+k.Path+"?notice=program_saved")
	return nil
}

// fieldsMessage is the message above a refused form: the messages of the
// fields the form has no place for, or a pointer to the marked ones.
func fieldsMessage(errs map[string][]string, fields []setupField) string {
	msg := "Please correct the fields marked below."
	for name, msgs := range errs {
		shown := false
		for _, fd := range fields {
			shown = shown || (fd.Name == name && fd.Kind != kindHidden)
		}
		if !shown && len(msgs) > 0 {
			msg += " " + msgs[0]
		}
	}
	return msg
}

func (s *Server) setupDisableConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	k, err := kindOf(r)
	if err != nil {
		return err
	}
	s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{Heading: "Disable this " + k.One + "?",
		Message: "The " + k.One + " stays in your program, disabled.",
		Effects: []string{"It no longer applies and customers no longer see it.", "You can enable it again at any time."},
		Submit:  "Disable " + k.One, Back: "/business/program/" + k.Path})
	return nil
}

// setupToggle enables or disables an object through its service's update.
func (s *Server) setupToggle(enabled bool) consoleHandler {
	return func(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
		k, err := kindOf(r)
		if err != nil || !k.Toggle {
			return loyalty.Errorf(loyalty.ENotFound, "Not found.")
		}
		if !enabled && !confirmed(w, r) {
			return nil
		}
		b, err := s.Program.Business(r.Context(), a)
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		saved, _, err := k.get(r.Context(), s, b, id, time.UTC)
		if err != nil {
			return err
		}
		named := url.Values{}
		for key, v := range saved {
			named.Set(key, v)
		}
		body := []byte(`{"enabled":false}`)
		if enabled {
			body = []byte(`{"enabled":true}`)
		}
		if err := k.save(r.Context(), s, a, id, setupName(named, id), body); err != nil {
			return err
		}
		redirect(w, "/business/program/"+k.Path+"?notice=program_saved")
		return nil
	}
}

// rulesFields are the earning rules' form.
var rulesFields = []setupField{
	{Name: "reward_ratio", Label: "Points", Kind: kindInt, Row: "a", Hint: "Earned for each step of spend below."},
	{Name: "reward_milestone_amount", Label: "For each", Kind: kindMoney, Row: "a", Hint: "Spent, such as 1.00."},
	{Name: "round_up_points", Label: "Round up", Kind: kindBool, Hint: "A partial step earns its share, rounded up."},
	{Name: "welcome_points", Label: "Welcome points", Kind: kindInt, Hint: "Given to each new customer."},
	{Name: "visits.points_per_visit", Label: "Points per visit", Kind: kindInt, Hint: "For a business that rewards visits."},
	{Name: "redemption_ratio", Label: "Redemption value: points", Kind: kindInt, Row: "b", Clear: true,
		Hint: "What your points are worth: this many points…"},
	{Name: "redemption_amount", Label: "Are worth", Kind: kindMoney, Row: "b", Clear: true,
		Hint: "…this amount of your currency. The dashboard's liability counts points at it; both empty: none."},
}

func (s *Server) rulesForm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	b, err := s.Program.Business(r.Context(), a)
	if err != nil {
		return err
	}
	rules, err := s.Program.Services.Transactions.Rules(r.Context(), b)
	if err != nil {
		return err
	}
	form := map[string]string{"reward_ratio": intText(rules.RewardRatio), "reward_milestone_amount": rules.RewardMilestoneAmount.String(),
		"round_up_points": boolText(rules.RoundUpPoints), "welcome_points": intText(rules.WelcomePoints),
		"visits.points_per_visit": intText(rules.PointsPerVisit)}
	if rules.Redemption.Redeeming() {
		form["redemption_ratio"], form["redemption_amount"] = intText(rules.Redemption.Points), rules.Redemption.Value.String()
	}
	return s.renderRules(w, r, a, http.StatusOK, form, nil, "")
}

func (s *Server) renderRules(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, form map[string]string,
	errs map[string][]string, msg string) error {
	v := s.consoleView(r, a, "Earning rules")
	v.Error = msg
	v.Data = setupFormPage{Heading: "Earning rules", Action: "/business/program/rules", Back: "/business/program",
		Submit: "Save rules", Rows: drawFields(rulesFields, form, nil, errs, nil)}
	s.render(w, r, status, "setup_form", v)
	return nil
}

func (s *Server) rulesSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f := r.PostForm
	body, bad := formBody(rulesFields, f, time.UTC)
	if len(bad) == 0 {
		in, err := decodeAs[loyalty.RulesInput](body)
		if err != nil {
			return err
		}
		_, err = s.Program.SaveRules(r.Context(), a, in)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = e.Fields
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		form := map[string]string{}
		for key := range f {
			form[key] = f.Get(key)
		}
		return s.renderRules(w, r, a, http.StatusUnprocessableEntity, form, bad, fieldsMessage(bad, rulesFields))
	}
	redirect(w, "/business/program/rules?notice=rules_saved")
	return nil
}
