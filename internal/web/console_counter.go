package web

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func (s *Server) counterRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/counter", s.console(loyalty.PermCounter, s.counter))
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
