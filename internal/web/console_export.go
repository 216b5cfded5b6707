package web

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/format"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// CSV exports of the customers and of the ledger, for the owner and
// managers: written row by row as the database reads them, and flushed
// to the browser every flushEvery rows, so no export is held whole.

const flushEvery = 500

func (s *Server) exportRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/customers/export", s.console(loyalty.PermManage, s.exportCustomers))
	mux.Handle("GET /business/ledger/export", s.console(loyalty.PermManage, s.exportLedger))
}

// csvStream writes CSV rows to an HTTP answer, flushing as it goes.
type csvStream struct {
	w   http.ResponseWriter
	csv *csv.Writer
	n   int
}

// newCSV starts a CSV answer named file with its header row.
func newCSV(w http.ResponseWriter, file string, header []string) *csvStream {
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+file+`"`)
	c := &csvStream{w: w, csv: csv.NewWriter(w)}
	c.csv.Write(header)
	return c
}

// row writes one row, flushing every flushEvery rows.
func (c *csvStream) row(cells []string) error {
	if err := c.csv.Write(cells); err != nil {
		return err
	}
	if c.n++; c.n%flushEvery == 0 {
		c.csv.Flush()
		if f, ok := c.w.(http.Flusher); ok {
			f.Flush()
		}
	}
	return c.csv.Error()
}

// text is a cell of free text: one a spreadsheet would read as a formula
// (=, +, -, @ first) is kept as text with a leading quote.
func text(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (s *Server) exportCustomers(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	q := r.URL.Query()
	in := console.CustomerSearch{Query: q.Get("q"), Tier: q.Get("tier"), Enabled: q.Get("enabled"),
		JoinedFrom: q.Get("joined_from"), JoinedTo: q.Get("joined_to")}
	b, loc, err := s.businessIn(r, a)
	if err != nil {
		return err
	}
	var out *csvStream
	// Amounts are plain decimals; their column names the currency.
	header := []string{"id", "first_name", "last_name", "email", "phone", "birth_date", "language", "enabled", "points",
		format.Header("giftcard", b), "joined_at"}
	err = s.Desk.ExportCustomers(r.Context(), a, in, loc, func(c loyalty.Customer) error {
		if out == nil {
			out = newCSV(w, "customers.csv", header)
		}
		return out.row([]string{c.ID, text(c.FirstName), text(c.LastName), text(c.Email), c.Phone, c.BirthDate, c.Language,
			strconv.FormatBool(c.Enabled), strconv.FormatInt(c.Balance.Points, 10), c.Balance.Giftcard.String(),
			loyalty.FormatTime(c.CreatedAt)})
	})
	return s.endCSV(w, r, out, err, "customers.csv", header)
}

func (s *Server) exportLedger(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	q := r.URL.Query()
	b, loc, err := s.businessIn(r, a)
	if err != nil {
		return err
	}
	var out *csvStream
	header := []string{"id", "created_at", "customer_id", "intent", "name", "points", format.Header("amount", b),
		format.Header("giftcard", b), "visits", "branch_id", "offer_id", "coupon_id", "reverses_id", "external_order_id", "comments"}
	id := func(n int64) string {
		if n == 0 {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	err = s.Desk.ExportLedger(r.Context(), a, q.Get("from"), q.Get("to"), loc, func(t loyalty.Transaction) error {
		if out == nil {
			out = newCSV(w, "ledger.csv", header)
		}
		ext := ""
		if t.Details != nil {
			ext = t.Details.ExternalOrderID
		}
		return out.row([]string{strconv.FormatInt(t.ID, 10), loyalty.FormatTime(t.CreatedAt), t.CustomerID, t.Intent, t.Name,
			strconv.FormatInt(t.Points, 10), t.Amount.String(), t.Giftcard.String(), strconv.FormatInt(t.Visits, 10),
			t.BranchID, id(t.OfferID), id(t.CouponID), id(t.ReversesID), text(ext), text(t.Comments)})
	})
	return s.endCSV(w, r, out, err, "ledger.csv", header)
}

// endCSV finishes an export: an export refused before its first row is an
// error page; one with no rows is the header alone; one cut short by a
// failure after its first rows can only end early (its status is sent),
// and the failure is logged.
func (s *Server) endCSV(w http.ResponseWriter, r *http.Request, out *csvStream, err error, file string, header []string) error {
	if out == nil {
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			for _, msgs := range e.Fields {
				return loyalty.Errorf(loyalty.EInvalid, "%s", strings.Join(msgs, " "))
			}
		}
		if err != nil {
			return err
		}
		out = newCSV(w, file, header)
	} else if err != nil {
		s.Logger.ErrorContext(r.Context(), "export cut short", "file", file, "err", err)
	}
	out.csv.Flush()
	return nil
}
