package web

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func (s *Server) counterRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/counter", s.console(loyalty.PermCounter, s.counter))
	mux.Handle("GET /business/customers", s.console(loyalty.PermCounter, s.customerLookup))
}

// lookupPage is the body of the counter and customers templates.
type lookupPage struct {
	Query    string
	Searched bool
	Results  []loyalty.Customer
	Currency string
}

// counter is the cashier's page. Recording sales and redemptions comes
// with the next part of the console; today it finds a customer.
func (s *Server) counter(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	v := s.consoleView(r, a, "Counter")
	v.Data = lookupPage{}
	s.render(w, r, http.StatusOK, "counter", v)
	return nil
}

// customerLookup finds customers by e-mail or phone and shows their
// balances.
func (s *Server) customerLookup(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	p := lookupPage{Query: q}
	v := s.consoleView(r, a, "Customers")
	status := http.StatusOK
	if q != "" {
		b, err := s.Store.Business(r.Context(), a.BusinessID)
		if err != nil {
			return err
		}
		prof, err := s.Console.Profiles.Profile(r.Context(), a.BusinessID)
		if err != nil {
			return err
		}
		p.Currency = prof.Currency
		p.Results, err = s.Customers.Lookup(r.Context(), b, q)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			v.Fields, status = e.Fields, http.StatusUnprocessableEntity
		} else if err != nil {
			return err
		} else {
			p.Searched = true
		}
	}
	v.Data = p
	s.render(w, r, status, "customers", v)
	return nil
}
