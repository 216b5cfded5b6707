package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// balanceJSON is a customer's balance on the wire: points are the active,
// usable ones. Where the balance was read whole (not on a transaction's
// reply) it also says what expires next and what expired.
type balanceJSON struct {
	Points   int64         `json:"points"`
	Giftcard loyalty.Money `json:"giftcard"`
	Pending  int64         `json:"pending_points"`
	*balanceLifeJSON
}

// balanceLifeJSON is the part of balanceJSON read with the customer's lots.
type balanceLifeJSON struct {
	Expiring   int64   `json:"expiring_points"`
	ExpiringAt *string `json:"expiring_at"`
	Expired    int64   `json:"expired_points"`
}

// toBalanceJSON writes a balance read whole.
func toBalanceJSON(b loyalty.Balance) *balanceJSON {
	life := &balanceLifeJSON{Expiring: b.Expiring, Expired: b.Expired}
	if !b.ExpiringAt.IsZero() {
		at := loyalty.FormatTime(b.ExpiringAt)
		life.ExpiringAt = &at
	}
	return &balanceJSON{Points: b.Points, Giftcard: b.Giftcard, Pending: b.Pending, balanceLifeJSON: life}
}

type userTypeJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// customerJSON is a customer on the wire (spec 2.3).
type customerJSON struct {
	ID        string           `json:"id"`
	FirstName *string          `json:"first_name"`
	LastName  *string          `json:"last_name"`
	Email     *string          `json:"email"`
	Phone     *string          `json:"phone"`
	BirthDate *string          `json:"birth_date"`
	Language  *string          `json:"language"`
	Gender    *string          `json:"gender"`
	Enabled   bool             `json:"enabled"`
	CreatedAt string           `json:"created_at"`
	UpdatedAt string           `json:"updated_at"`
	Balance   *balanceJSON     `json:"balance,omitempty"`
	Address   *loyalty.Address `json:"address,omitempty"`
	UserType  *userTypeJSON    `json:"user_type,omitempty"`
}

// nullable writes an empty string as JSON null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toCustomerJSON(c loyalty.Customer, withBalance bool, rel map[string]bool) customerJSON {
	out := customerJSON{
		ID: c.ID, FirstName: nullable(c.FirstName), LastName: nullable(c.LastName), Email: nullable(c.Email),
		Phone: nullable(c.Phone), BirthDate: nullable(c.BirthDate), Language: nullable(c.Language),
		Gender: nullable(c.Gender), Enabled: c.Enabled,
		CreatedAt: loyalty.FormatTime(c.CreatedAt), UpdatedAt: loyalty.FormatTime(c.UpdatedAt),
	}
	if withBalance {
		out.Balance = toBalanceJSON(c.Balance)
	}
	if rel["address"] {
		a := c.Address
		out.Address = &a
	}
	if rel["user_type"] {
		out.UserType = &userTypeJSON{ID: "customer", Name: "Customer"}
	}
	return out
}

// businessOf returns the business of the request, for rules that need it.
func (s *Server) businessOf(r *http.Request, rc *reqCtx) (loyalty.Business, error) {
	return s.Accounts.Business(r.Context(), rc.businessID)
}

func (s *Server) listCustomers(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	include, _, err := queryNames(r, []string{"balance"}, nil)
	if err != nil {
		return err
	}
	b, err := s.businessOf(r, rc)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.CustomerListSpec(b.Country))
	if err != nil {
		return err
	}
	list, total, err := s.Customers.List(r.Context(), b, lq)
	if err != nil {
		return err
	}
	data := make([]customerJSON, len(list))
	for i, c := range list {
		data[i] = toCustomerJSON(c, include["balance"], nil)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"cursor": cursorOf("customers", q, lq, len(list), total),
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
	c, err := s.Customers.Create(r.Context(), b, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toCustomerJSON(c, false, nil)})
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
	c, err := s.Customers.Update(r.Context(), b, r.PathValue("id"), in)
	if err != nil {
		return notFoundAs(err, "Customer not found.")
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toCustomerJSON(c, false, nil)})
	return nil
}

func (s *Server) deleteCustomer(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	b := loyalty.Business{ID: rc.businessID}
	if err := s.Customers.Delete(r.Context(), b, r.PathValue("id")); err != nil {
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
