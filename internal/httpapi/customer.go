package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// businessOf returns the business of the request, for rules that need it.
func (s *Server) businessOf(r *http.Request, rc *reqCtx) (loyalty.Business, error) {
	return rc.svc.Accounts.Business(r.Context(), rc.businessID)
}

func (s *Server) listCustomers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var seg *loyalty.Segment
	if id := r.URL.Query().Get("segment_id"); id != "" || r.URL.Query().Has("segment_id") {
		got, err := rc.svc.Segments.Get(r.Context(), tenant(rc), id)
		if err != nil {
			if loyalty.ErrorCode(err) == loyalty.ENotFound || loyalty.ErrorCode(err) == loyalty.EBadRequest {
				return loyalty.Invalid("segment_id", "The segment_id must be the id of one of the business's segments.")
			}
			return err
		}
		seg = &got
	}
	return s.writeCustomers(w, r, rc, "customers", seg)
}

// writeCustomers answers a page of the business's customers (of seg
// when it is set), filtered as GET /customers filters them.
func (s *Server) writeCustomers(w http.ResponseWriter, r *http.Request, rc *reqCtx, path string, seg *loyalty.Segment) error {
	q := r.URL.Query()
	include, _, err := queryNames(r, []string{"balance"}, nil)
	if err != nil {
		return err
	}
	b, err := s.businessOf(r, rc)
	if err != nil {
		return err
	}
	spec := loyalty.CustomerListSpec(b.Country)
	if path == "customers" {
		spec.Reserved = append(spec.Reserved, "segment_id")
	}
	lq, err := loyalty.ParseListQuery(q, spec)
	if err != nil {
		return err
	}
	var list []loyalty.Customer
	var total int
	if seg != nil {
		list, total, err = rc.svc.Segments.Customers(r.Context(), b, *seg, lq)
	} else {
		list, total, err = rc.svc.Customers.List(r.Context(), b, lq)
	}
	if err != nil {
		return err
	}
	data := make([]loyalty.CustomerJSON, len(list))
	for i, c := range list {
		data[i] = loyalty.NewCustomerJSON(c, include["balance"], nil)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf(path, q, lq, len(list), total),
		"meta":   map[string]int{"total": total},
	})
	return nil
}

// cursor is the paging object of top-level collections.
type cursor struct {
	Count   int     `json:"count"`
	Next    *int    `json:"next"`
	NextURI *string `json:"next_uri"`
}

// cursorOf builds the cursor of a page, keeping the other query parameters
// in next_uri.
func cursorOf(path string, q url.Values, lq loyalty.ListQuery, count, total int) cursor {
	c := cursor{Count: count}
	if lq.Offset()+count < total && count > 0 {
		next := lq.Page + 1
		nq := url.Values{}
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("page", strconv.Itoa(next))
		uri := path + "?" + nq.Encode()
		c.Next, c.NextURI = &next, &uri
	}
	return c
}

func (s *Server) createCustomer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.CustomerInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b, err := s.businessOf(r, rc)
	if err != nil {
		return err
	}
	c, err := auditedOf(s, r, rc, loyalty.AuditCustomerCreated, inputCustomer(in, ""), func(svc loyalty.Services) (loyalty.Customer, error) {
		return svc.Customers.Create(r.Context(), b, in)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewCustomerJSON(c, false, nil)})
	return nil
}

func (s *Server) updateCustomer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in loyalty.CustomerInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b, err := s.businessOf(r, rc)
	if err != nil {
		return err
	}
	c, err := auditedOf(s, r, rc, loyalty.AuditCustomerUpdated, s.customerTarget(r, rc, r.PathValue("id")), func(svc loyalty.Services) (loyalty.Customer, error) {
		return svc.Customers.Update(r.Context(), b, r.PathValue("id"), in)
	})
	if err != nil {
		return notFoundAs(err, "Customer not found.")
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewCustomerJSON(c, false, nil)})
	return nil
}

func (s *Server) deleteCustomer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	b := loyalty.Business{ID: rc.businessID}
	erase := false
	for k, v := range r.URL.Query() {
		switch {
		case k == "erase" && len(v) == 1 && (v[0] == "true" || v[0] == "false"):
			erase = v[0] == "true"
		case k == "erase":
			return loyalty.Errorf(loyalty.EBadRequest, "erase must be true or false.")
		default:
			return loyalty.Errorf(loyalty.EBadRequest, "DELETE /customers/{id} takes no %s.", k)
		}
	}
	if erase {
		// The log keeps no personal data of an erased customer: the id only.
		var photo string
		if err := s.audited(r, rc, loyalty.AuditCustomerErased, "Customer #"+r.PathValue("id"), func(svc loyalty.Services) error {
			var err error
			photo, err = svc.Customers.EraseCustomer(r.Context(), b, r.PathValue("id"))
			return err
		}); err != nil {
			return notFoundAs(err, "Customer not found.")
		}
		s.DropImage(r.Context(), photo)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err := s.audited(r, rc, loyalty.AuditCustomerDeleted, s.customerTarget(r, rc, r.PathValue("id")), func(svc loyalty.Services) error {
		return svc.Customers.Delete(r.Context(), b, r.PathValue("id"))
	}); err != nil {
		return notFoundAs(err, "Customer not found.")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// notFoundAs gives a not-found error the message of the resource asked for.
func notFoundAs(err error, msg string) error {
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return loyalty.Errorf(loyalty.ENotFound, "%s", msg)
	}
	return err
}
