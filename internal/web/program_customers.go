package web

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// A customers field (an offer's targets) is a list of ticked customers
// and a search box: Find posts the form back, which comes again with the
// customers found added, unticked, below those chosen. Nothing is saved
// until the form is; no script is needed (setup.js makes Enter in the
// box find).

// findLimit is how many customers a search adds to the list.
const findLimit = 10

// customerPicks puts in sources, under each customers field's name, the
// customers chosen (form's value) and those its search found, and under
// name_note what the search found in words.
func (s *Server) customerPicks(r *http.Request, a loyalty.Actor, b loyalty.Business, fields []setupField, form formValues, sources map[string][]option) error {
	for _, fd := range fields {
		if fd.Kind != kindCustomers {
			continue
		}
		var picks []option
		seen := map[string]bool{}
		for _, id := range strings.Split(form[fd.Name], "\n") {
			if id = strings.TrimSpace(id); id == "" || seen[id] {
				continue
			}
			seen[id] = true
			c, err := s.Program.Services.Customers.Get(r.Context(), b, id)
			if loyalty.ErrorCode(err) == loyalty.ENotFound {
				picks = append(picks, option{id, "Customer " + id + " (not found)"})
				continue
			} else if err != nil {
				return err
			}
			picks = append(picks, option{id, customerLabel(c)})
		}
		if q := strings.TrimSpace(form[fd.Name+"_q"]); q != "" {
			loc, err := s.location(r, a)
			if err != nil {
				return err
			}
			found, err := s.Desk.Search(r.Context(), a, console.CustomerSearch{Query: q, Page: 1}, loc)
			if err != nil && loyalty.ErrorCode(err) != loyalty.EInvalid {
				return err
			}
			added := 0
			for _, c := range found.Customers {
				if !seen[c.ID] && added < findLimit {
					seen[c.ID] = true
					picks = append(picks, option{c.ID, customerLabel(c)})
					added++
				}
			}
			note := "Tick those to add."
			switch {
			case found.Total == 0:
				note = "Nobody found for “" + q + "”."
			case added == 0:
				note = "Those found for “" + q + "” are already in the list."
			case found.Total > added:
				note = "The first " + intText(int64(added)) + " found for “" + q + "”: tick those to add, or type more of the name."
			}
			sources[fd.Name+"_note"] = []option{{"", note}}
		}
		sources[fd.Name] = picks
	}
	return nil
}

// customerLabel names a customer in a list: the name, then the e-mail or
// phone that tells two of one name apart.
func customerLabel(c loyalty.Customer) string {
	name := displayName(c)
	for _, contact := range []string{c.Email, c.Phone} {
		if contact != "" && contact != name {
			return name + " · " + contact
		}
	}
	return name
}
