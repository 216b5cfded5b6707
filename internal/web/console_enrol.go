package web

import (
	"net/http"
	"slices"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// Enrolment: a walk-in joins at the counter (the form under a search
// that found nobody) or from the customer list (Add customer). Every
// role serving at the counter may add a customer; someone already a
// customer, by the e-mail address or phone number typed, is shown
// instead of a refusal.

func (s *Server) enrolRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/customers/new", s.console(loyalty.PermCounter, s.customerNew))
	mux.Handle("POST /business/customers/new", s.console(loyalty.PermCounter, s.customerNewSave))
}

// enrolFields are the new customer form's fields.
var enrolFields = []string{"first_name", "last_name", "email", "phone", "birth_date"}

// enrolForm is an enrolment as the form shows it.
func enrolForm(e console.Enrolment) map[string]string {
	return map[string]string{"first_name": e.FirstName, "last_name": e.LastName, "email": e.Email, "phone": e.Phone,
		"birth_date": e.BirthDate}
}

// enrolFocus is the field of the new customer form that takes the
// cursor: the first refused, else the first empty.
func enrolFocus(form map[string]string, fields map[string][]string) string {
	for _, k := range enrolFields {
		if len(fields[k]) > 0 {
			return k
		}
	}
	for _, k := range enrolFields {
		if form[k] == "" {
			return k
		}
	}
	return enrolFields[0]
}

// postedEnrolment reads the new customer form, and the form as sent.
func postedEnrolment(r *http.Request) (console.Enrolment, map[string]string) {
	f := r.PostForm
	form := map[string]string{}
	for _, k := range enrolFields {
		form[k] = f.Get(k)
	}
	form["offers_email"], form["offers_sms"] = f.Get("offers_email"), f.Get("offers_sms")
	return console.Enrolment{FirstName: f.Get("first_name"), LastName: f.Get("last_name"), Email: f.Get("email"),
		Phone: f.Get("phone"), BirthDate: f.Get("birth_date"), OffersByEmail: f.Get("offers_email") == "on",
		OffersBySMS: f.Get("offers_sms") == "on"}, form
}

// enrolRefusal is the message above a refused form, with what the form
// has no field for.
func enrolRefusal(e *loyalty.Error) string {
	for f, msgs := range e.Fields {
		if !slices.Contains(enrolFields, f) && len(msgs) > 0 {
			return "Not added: " + msgs[0]
		}
	}
	return "Not added: please correct the fields marked below."
}

// counterEnrol adds the customer the counter's form describes and serves
// them: the sale is the next thing the cashier does.
func (s *Server) counterEnrol(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	in, form := postedEnrolment(r)
	got, err := s.Desk.Enrol(r.Context(), a, in)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return s.renderCounter(w, r, a, httpapi.StatusOf(e.Code), r.PostForm.Get("code"), form, e.Fields, enrolRefusal(e))
	} else if err != nil {
		return err
	}
	redirect(w, "/business/counter/"+got.Customer.ID+"?notice="+enrolNotice(got, "customer_enrolled"))
	return nil
}

// enrolNotice is the notice after an enrolment: done, or the customer
// who already had the contact.
func enrolNotice(got console.Enrolled, done string) string {
	if got.Existing {
		return "customer_existing"
	}
	return done
}

func (s *Server) customerNew(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.renderNew(w, r, a, http.StatusOK, enrolForm(console.Enrolment{}), nil, "")
}

func (s *Server) renderNew(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int,
	form map[string]string, fields map[string][]string, msg string) error {
	v := s.consoleView(r, a, "Add customer")
	v.Form, v.Fields, v.Error = form, fields, msg
	v.Data = enrolFocus(form, fields)
	s.render(w, r, status, "customer_new", v)
	return nil
}

func (s *Server) customerNewSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	in, form := postedEnrolment(r)
	got, err := s.Desk.Enrol(r.Context(), a, in)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return s.renderNew(w, r, a, httpapi.StatusOf(e.Code), form, e.Fields, enrolRefusal(e))
	} else if err != nil {
		return err
	}
	redirect(w, "/business/customers/"+got.Customer.ID+"?notice="+enrolNotice(got, "customer_added"))
	return nil
}
