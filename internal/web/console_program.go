package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
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
	mux.Handle("GET /business/program/{kind}/{id}/delete", s.console(loyalty.PermManage, s.setupDeleteConfirm))
	mux.Handle("POST /business/program/{kind}/{id}/delete", s.console(loyalty.PermManage, s.setupDelete))
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
	Kind       *setupKind
	Rows       []setupRow
	Query      string // the search typed
	Page       int
	Prev, Next string // links to the pages around, "" for none
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
	p := setupListPage{Kind: k, Page: 1}
	if k.page != nil {
		p.Query = strings.TrimSpace(r.URL.Query().Get("q"))
		if n, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && n > 1 && n < 1e6 {
			p.Page = n
		}
		var more bool
		if p.Rows, more, err = k.page(r.Context(), s, a, b, p.Query, p.Page); err != nil {
			return err
		}
		link := func(n int) string {
			q := url.Values{"page": {strconv.Itoa(n)}}
			if p.Query != "" {
				q.Set("q", p.Query)
			}
			return "/business/program/" + k.Path + "?" + q.Encode()
		}
		if p.Page > 1 {
			p.Prev = link(p.Page - 1)
		}
		if more {
			p.Next = link(p.Page + 1)
		}
	} else if p.Rows, err = k.list(r.Context(), s, b); err != nil {
		return err
	}
	v := s.consoleView(r, a, k.Title)
	v.Data = p
	s.render(w, r, http.StatusOK, "setup_list", v)
	return nil
}

// setupFormPage is the body of the setup_form template.
type setupFormPage struct {
	Heading, Action, Back, Submit string
	Rows                          []fieldRow
	// Delete links to the confirmation of the object's deletion.
	Delete string
	// Types are the types to choose from before the form (Rows empty);
	// TypeName is the type chosen and OtherTypes the links to the others.
	Types      []typeChoice
	TypeName   string
	OtherTypes []typeChoice
	// Sample is a rule's sample basket, and Preview what it earns.
	Sample  *sampleBasket
	Preview *rulePreview
}

// typeChoice is one type offered before a form.
type typeChoice struct {
	Href, Label, Hint string
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
	if k.typed != nil {
		if t := r.URL.Query().Get("type"); t != "" && slices.ContainsFunc(k.Types, func(o option) bool { return o.Value == t }) {
			form[k.TypeField] = t
		}
	}
	return s.renderSetup(w, r, a, b, k, http.StatusOK, form, chosen, nil, "", nil)
}

func (s *Server) renderSetup(w http.ResponseWriter, r *http.Request, a loyalty.Actor, b loyalty.Business, k *setupKind, status int,
	form map[string]string, chosen []string, errs map[string][]string, msg string, preview *rulePreview) error {
	p := setupFormPage{Heading: "New " + k.One, Action: "/business/program/" + k.Path, Back: "/business/program/" + k.Path, Submit: "Create " + k.One}
	id := r.PathValue("id")
	if id != "" {
		p.Heading, p.Action, p.Submit = "Edit "+k.One, p.Action+"/"+id, "Save "+k.One
		if k.remove != nil {
			p.Delete = p.Action + "/delete"
		}
	}
	v := s.consoleView(r, a, p.Heading)
	if k.typed != nil {
		typ := form[k.TypeField]
		if typ == "" {
			// The type first: each leads to its own form.
			p.Heading = "New " + k.One + ": what does it give?"
			for _, t := range k.Types {
				p.Types = append(p.Types, typeChoice{Href: "?type=" + t.Value, Label: t.Label, Hint: k.TypeHints[t.Value]})
			}
			v.Title, v.Data = p.Heading, p
			s.render(w, r, status, "setup_form", v)
			return nil
		}
		p.TypeName = optionLabel(k.Types, typ)
		for _, t := range k.Types {
			if t.Value != typ {
				p.OtherTypes = append(p.OtherTypes, typeChoice{Href: "?type=" + t.Value, Label: t.Label})
			}
		}
	}
	fields := k.fieldsOf(form)
	sources, err := s.sourceOptions(r, a, b, fields)
	if err != nil {
		return err
	}
	if err := s.customerPicks(r, a, b, fields, form, sources); err != nil {
		return err
	}
	if err := s.pickSearches(r, a, fields, form, chosen, sources); err != nil {
		return err
	}
	p.Rows = drawFields(fields, form, chosen, errorsFor(errs, fields), sources, b.CurrencyCode())
	if k.preview != nil {
		p.Sample, p.Preview = newSample(form, sources), preview
		if p.Sample.Branches, err = s.branchOptions(r, b); err != nil {
			return err
		}
	}
	if k.preview != nil || slices.ContainsFunc(fields, func(fd setupField) bool {
		return fd.Kind == kindPick || fd.Kind == kindBranches || fd.Kind == kindCustomers || fd.Kind == kindRef
	}) {
		v.Script = "setup.js"
	}
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
	form := postedValues(f)
	fields := k.fieldsOf(form)
	body, bad := formBody(fields, f, loc)
	if k.preview != nil && f.Get("preview") != "" {
		return s.previewRule(w, r, a, b, k, form, body, bad)
	}
	if f.Get("find") != "" {
		// A search of a customers field or a long pick: the form again,
		// with what it found.
		return s.renderSetup(w, r, a, b, k, http.StatusOK, form, f["branches"], nil, "", nil)
	}
	if len(bad) == 0 {
		err = k.save(r.Context(), s, a, r.PathValue("id"), setupName(f, r.PathValue("id")), body)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			bad = e.Fields
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return s.renderSetup(w, r, a, b, k, http.StatusUnprocessableEntity, form, f["branches"], bad, fieldsMessage(bad, fields), nil)
	}
	redirect(w, "/business/program/"+k.Path+"?notice=program_saved")
	return nil
}

// fieldsMessage is the message above a refused form: the messages of the
// fields the form has no place for, or a pointer to the marked ones.
func fieldsMessage(errs map[string][]string, fields []setupField) string {
	msg := "Please correct the fields marked below."
	for name, msgs := range errorsFor(errs, fields) {
		shown := false
		for _, fd := range fields {
			shown = shown || (fd.Name == name && fd.Kind != kindHidden && fd.Kind != kindConst)
		}
		if !shown && len(msgs) > 0 {
			msg += " " + msgs[0]
		}
	}
	return msg
}
