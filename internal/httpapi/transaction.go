package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// transactionJSON is a ledger entry on the wire (spec 2.4): the entry as
// every reply shows it, with what the request asked for.
type transactionJSON struct {
	loyalty.TransactionJSON
	Balance            *loyalty.BalanceJSON `json:"balance,omitempty"`
	Branch             *branchJSON          `json:"branch,omitempty"`
	TransactionDetails detailsJSON          `json:"transaction_details,omitzero"`
	EcomCoupon         *loyalty.CouponJSON  `json:"ecom_coupon,omitempty"`
	Sequences          *[]sequenceJSON      `json:"transaction_sequences,omitempty"`
	// Applied are, on a reward by amount's reply, the rules that gave its
	// points (as POST /baskets/evaluate lists them).
	Applied *[]appliedJSON `json:"applied,omitempty"`
}

// sequenceJSON is an entry that followed from another (its cancellation),
// as the reference's transaction_sequences show it. The ledger keeps no
// sequence rows: the id is the following entry's.
type sequenceJSON struct {
	ID                   int64                   `json:"id"`
	InitialTransactionID int64                   `json:"initial_transaction_id"`
	NextTransactionID    int64                   `json:"next_transaction_id"`
	NextTransaction      loyalty.TransactionJSON `json:"next_transaction"`
}

// withSequences sets the entry's transaction_sequences from next.
func (t *transactionJSON) withSequences(id int64, next []loyalty.Transaction) {
	seq := make([]sequenceJSON, len(next))
	for i, n := range next {
		seq[i] = sequenceJSON{ID: n.ID, InitialTransactionID: id, NextTransactionID: n.ID, NextTransaction: loyalty.NewTransactionJSON(n)}
	}
	t.Sequences = &seq
}

// detailsJSON is the transaction_details of an entry when asked for: the
// details, or null when the entry has none (spec 2.4).
type detailsJSON struct {
	shown bool
	d     *loyalty.TransactionDetails
}

// IsZero reports whether the details were not asked for (the field is left out).
func (d detailsJSON) IsZero() bool { return !d.shown }

// MarshalJSON writes the details, or null.
func (d detailsJSON) MarshalJSON() ([]byte, error) { return json.Marshal(d.d) }

// customerRefJSON is the customer of a written entry, with the balance it
// left (where the reference platform puts it).
type customerRefJSON struct {
	ID      string              `json:"id"`
	Balance loyalty.BalanceJSON `json:"balance"`
}

type actionJSON struct {
	Type string `json:"type"`
}

func toTransactionJSON(t loyalty.Transaction) transactionJSON {
	return transactionJSON{TransactionJSON: loyalty.NewTransactionJSON(t)}
}

// requestHash fingerprints a request body for Idempotency-Key reuse checks.
func requestHash(r *http.Request, body []byte) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.Path)
	h.Write(body)
	return h.Sum(nil)
}

func (s *Server) createTransaction(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		return loyalty.Errorf(loyalty.EBadRequest, "The body could not be read.")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var in loyalty.TransactionInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b := *rc.business // read with the token (the ledger route)
	var idem *loyalty.Idempotency
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		if len(key) > 255 {
			return loyalty.Invalid("idempotency_key", "The Idempotency-Key may not be longer than 255 characters.")
		}
		idem = &loyalty.Idempotency{Key: key, Hash: requestHash(r, body)}
	}
	t, replay, err := rc.svc.Transactions.Create(r.Context(), b, in, idem)
	if err != nil {
		// The domain's not-found names what is missing (customer, offer,
		// coupon, catalog item, gift card).
		return err
	}
	if replay != nil {
		w.Header().Set("Idempotent-Replayed", "true")
		switch {
		case replay.Legacy != nil:
			writeRaw(w, replay.Legacy.Format, replay.Legacy.Body)
			return nil
		case replay.Err != nil:
			return replay.Err
		}
		t = replay.Transaction
	}
	return writeTransaction(w, t)
}

// writeTransaction answers with an entry and the balance it left (as
// data.balance and as data.customer.balance), the same whether the entry
// was just written or is replayed.
func writeTransaction(w http.ResponseWriter, t loyalty.Transaction) error {
	out := toTransactionJSON(t)
	bal := loyalty.BalanceJSON{Points: t.Balance.Points, Giftcard: t.Balance.Giftcard, Pending: t.Balance.Pending}
	out.Balance, out.Customer = &bal, customerRefJSON{ID: t.CustomerID, Balance: bal}
	if t.Applied != nil {
		applied := appliedOf(t.Applied)
		out.Applied = &applied
	}
	writeJSON(w, http.StatusOK, dataJSON[transactionJSON]{Data: out})
	return nil
}

// writeRaw writes an already-encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func (s *Server) cancelTransaction(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return loyalty.Errorf(loyalty.EBadRequest, "Invalid transaction id supplied.")
	}
	if err := s.audited(r, rc, loyalty.AuditTransactionCancel, "Transaction #"+strconv.FormatInt(id, 10), func(svc loyalty.Services) error {
		_, err := svc.Transactions.Cancel(r.Context(), loyalty.Business{ID: rc.businessID}, id)
		return err
	}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listTransactions(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	_, rel, err := queryNames(r, nil, loyalty.TransactionListRelationships)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.TransactionListSpec)
	if err != nil {
		return err
	}
	page, err := rc.svc.Transactions.List(r.Context(), loyalty.Business{ID: rc.businessID}, lq, loyalty.TransactionWith{Customers: rel["customer"], Sequences: rel["transaction_sequences"], Items: rel["items"]})
	if err != nil {
		return err
	}
	data := make([]transactionJSON, len(page.Entries))
	for i, t := range page.Entries {
		data[i] = toTransactionJSON(t)
		if rel["transaction_details"] {
			data[i].TransactionDetails = detailsJSON{shown: true, d: t.Details}
		}
		if rel["transaction_sequences"] {
			data[i].withSequences(t.ID, page.Sequences[t.ID])
		}
		if c, ok := page.Customers[t.CustomerID]; ok {
			data[i].Customer = loyalty.NewCustomerJSON(c, false, nil)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": cursorOf("transactions", q, lq, len(data), page.Total),
		"meta": map[string]int{"total": page.Total}})
	return nil
}

func (s *Server) customerTransactions(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	q := r.URL.Query()
	include, rel, err := queryNames(r, loyalty.HistoryIncludes, loyalty.HistoryRelationships)
	if err != nil {
		return err
	}
	lq, err := loyalty.ParseListQuery(q, loyalty.HistoryListSpec)
	if err != nil {
		return err
	}
	customerID := r.PathValue("id")
	page, err := rc.svc.Transactions.History(r.Context(), loyalty.Business{ID: rc.businessID}, customerID, lq,
		loyalty.TransactionWith{Branches: rel["branch"], Coupons: include["ecom_coupon"], Sequences: rel["transaction_sequences"],
			Items: rel["items"]})
	if err != nil {
		return err
	}
	data := make([]transactionJSON, len(page.Entries))
	for i, t := range page.Entries {
		data[i] = toTransactionJSON(t)
		if rel["transaction_details"] {
			data[i].TransactionDetails = detailsJSON{shown: true, d: t.Details}
		}
		if rel["transaction_sequences"] {
			data[i].withSequences(t.ID, page.Sequences[t.ID])
		}
		if b, ok := page.Branches[t.BranchID]; ok {
			bj := toBranchJSON(b)
			data[i].Branch = &bj
		}
		if cp, ok := page.Coupons[t.CouponID]; ok {
			data[i].EcomCoupon = loyalty.NewCouponJSON(cp)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data,
		"links": pageLinks("customers/"+strings.ToLower(customerID)+"/transactions", q, lq, page.Total),
		"meta":  pageMeta(lq, len(data), page.Total)})
	return nil
}

// pageLinks are the first/last/prev/next links of a paged list.
func pageLinks(path string, q url.Values, lq loyalty.ListQuery, total int) map[string]*string {
	last := (total + lq.PerPage - 1) / lq.PerPage
	if last < 1 {
		last = 1
	}
	link := func(page int) *string {
		nq := url.Values{}
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("page", strconv.Itoa(page))
		s := path + "?" + nq.Encode()
		return &s
	}
	links := map[string]*string{"first": link(1), "last": link(last), "prev": nil, "next": nil}
	if lq.Page > 1 {
		links["prev"] = link(min(lq.Page-1, last))
	}
	if lq.Page < last {
		links["next"] = link(lq.Page + 1)
	}
	return links
}

// pageMeta is the meta object of a paged list.
func pageMeta(lq loyalty.ListQuery, count, total int) map[string]any {
	last := max((total+lq.PerPage-1)/lq.PerPage, 1)
	var from, to any
	if count > 0 {
		from, to = lq.Offset()+1, lq.Offset()+count
	}
	return map[string]any{"current_page": lq.Page, "from": from, "last_page": last, "per_page": lq.PerPage, "to": to, "total": total}
}

// detailsReplyJSON is the reply of PATCH /transactions/{id}/details, as the
// reference shows it: every detail, null when it has none.
type detailsReplyJSON struct {
	ExternalOrderID *string `json:"external_order_id"`
	CustomField1    *string `json:"custom_field_1"`
	CustomField2    *string `json:"custom_field_2"`
	CustomField3    *string `json:"custom_field_3"`
	CustomField4    *string `json:"custom_field_4"`
	CustomField5    *string `json:"custom_field_5"`
}

// orNull is s, or nil when it is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) updateTransactionDetails(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return loyalty.Errorf(loyalty.EBadRequest, "Invalid transaction id supplied.")
	}
	var body map[string]json.RawMessage
	if err := decodeBody(r, &body); err != nil {
		return err
	}
	p, err := loyalty.ParseDetailsPatch(body)
	if err != nil {
		return err
	}
	a, err := s.appActor(r, rc)
	if err != nil {
		return err
	}
	d, err := rc.svc.Transactions.UpdateDetails(r.Context(), a, id, p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": detailsReplyJSON{orNull(d.ExternalOrderID), orNull(d.CustomField1),
		orNull(d.CustomField2), orNull(d.CustomField3), orNull(d.CustomField4), orNull(d.CustomField5)}})
	return nil
}
