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
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// transactionJSON is a ledger entry on the wire (spec 2.4).
type transactionJSON struct {
	ID                 int64         `json:"id"`
	Intent             string        `json:"intent"`
	TransactionType    int           `json:"transaction_type"`
	Name               string        `json:"name"`
	Amount             loyalty.Money `json:"amount"`
	Points             int64         `json:"points"`
	PendingPoints      int64         `json:"pending_points"` // of points, those that moved pending points
	Giftcard           loyalty.Money `json:"giftcard"`
	Visits             int64         `json:"visits"`
	Customer           any           `json:"customer"` // {id}, {id, balance} on a write, the customer with relationships=customer
	ReversesID         *int64        `json:"reverses_id"`
	Receipt            *receiptJSON  `json:"receipt"`
	Comments           *string       `json:"comments"`
	CreatedAt          string        `json:"created_at"`
	UpdatedAt          string        `json:"updated_at"`
	Balance            *balanceJSON  `json:"balance,omitempty"`
	Branch             *branchJSON   `json:"branch,omitempty"`
	TransactionDetails detailsJSON   `json:"transaction_details,omitzero"`
	CatalogItems       []itemJSON    `json:"catalog_items,omitempty"`
	Coupon             *couponJSON   `json:"coupon,omitempty"`
	EcomCoupon         *couponJSON   `json:"ecom_coupon,omitempty"`
}

// receiptJSON is the business's receipt a transaction is attached to.
type receiptJSON struct {
	Number string `json:"number"`
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
	ID      string      `json:"id"`
	Balance balanceJSON `json:"balance"`
}

type itemJSON struct {
	ID       int64 `json:"id"`
	Quantity int64 `json:"quantity"`
	Points   int64 `json:"points"`
	*itemValueJSON
}

// couponJSON is an issued coupon (spec 2.6).
type couponJSON struct {
	ID           int64     `json:"id"`
	QRCode       string    `json:"qrcode"`
	CouponLocked bool      `json:"coupon_locked"`
	CouponTypeID int       `json:"coupon_type_id"`
	ExpiresAt    *string   `json:"expires_at"`
	Offer        offerJSON `json:"offer"`
}

// offerJSON is an offer on the wire (spec 2.5).
type offerJSON struct {
	ID            int64           `json:"id"`
	TypeID        int             `json:"type_id"`
	Type          string          `json:"type"`
	Title         string          `json:"title"`
	Description   string          `json:"description"`
	Points        int64           `json:"points"`
	MultipFactor  loyalty.Money   `json:"multip_factor"`
	DiscountValue loyalty.Money   `json:"discount_value"`
	RealValue     loyalty.Money   `json:"real_value"`
	ExpiresAt     *string         `json:"expires_at"`
	Images        []loyalty.Image `json:"images"`
	Actions       []actionJSON    `json:"actions,omitempty"`
	Branch        *branchJSON     `json:"branch,omitempty"`
}

type actionJSON struct {
	Type string `json:"type"`
}

// offerTypeNames are the offer types' names by type id.
var offerTypeNames = map[int]string{
	loyalty.OfferPointsMultiplier: "points_multiplier", loyalty.OfferFreeProduct: "free_product",
	loyalty.OfferBonusPoints: "bonus_points", loyalty.OfferBasic8: "free_product",
	loyalty.OfferBasic9: "discount_percentage", loyalty.OfferBasic10: "discount_amount",
}

// optTime writes a time in the API's form, or null when it is unset.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := loyalty.FormatTime(t)
	return &s
}

func toOfferJSON(o loyalty.Offer) offerJSON {
	images := o.Images
	if images == nil {
		images = []loyalty.Image{}
	}
	return offerJSON{ID: o.ID, TypeID: o.TypeID, Type: offerTypeNames[o.TypeID], Title: o.Title, Description: o.Description,
		Points: o.Points, MultipFactor: o.MultipFactor, DiscountValue: o.DiscountValue, RealValue: o.RealValue,
		ExpiresAt: optTime(o.ExpiresAt), Images: images}
}

func toCouponJSON(c loyalty.Coupon) *couponJSON {
	return &couponJSON{ID: c.ID, QRCode: c.QRCode, CouponLocked: c.Locked, CouponTypeID: c.CouponTypeID,
		ExpiresAt: optTime(c.ExpiresAt), Offer: toOfferJSON(c.Offer)}
}

func toTransactionJSON(t loyalty.Transaction) transactionJSON {
	ts := loyalty.FormatTime(t.CreatedAt)
	out := transactionJSON{ID: t.ID, Intent: t.Intent, TransactionType: t.TypeCode, Name: t.Name, Amount: t.Amount,
		Points: t.Points, PendingPoints: t.Pending, Giftcard: t.Giftcard, Visits: t.Visits, Customer: map[string]string{"id": t.CustomerID},
		Comments: nullable(t.Comments), CreatedAt: ts, UpdatedAt: ts}
	if t.Receipt != "" {
		out.Receipt = &receiptJSON{Number: t.Receipt}
	}
	if t.ReversesID != 0 {
		id := t.ReversesID
		out.ReversesID = &id
	}
	for _, it := range t.Items {
		out.CatalogItems = append(out.CatalogItems, itemJSON{ID: it.RewardID, Quantity: it.Quantity, Points: it.Points,
			itemValueJSON: toItemValueJSON(it)})
	}
	if t.Coupon != nil {
		out.Coupon = toCouponJSON(*t.Coupon)
	}
	return out
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
	t, replay, err := s.Transactions.Create(r.Context(), b, in, idem)
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
	bal := balanceJSON{Points: t.Balance.Points, Giftcard: t.Balance.Giftcard, Pending: t.Balance.Pending}
	out.Balance, out.Customer = &bal, customerRefJSON{ID: t.CustomerID, Balance: bal}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
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
	if _, err := s.Transactions.Cancel(r.Context(), loyalty.Business{ID: rc.businessID}, id); err != nil {
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
	page, err := s.Transactions.List(r.Context(), loyalty.Business{ID: rc.businessID}, lq, loyalty.TransactionWith{Customers: rel["customer"]})
	if err != nil {
		return err
	}
	data := make([]transactionJSON, len(page.Entries))
	for i, t := range page.Entries {
		data[i] = toTransactionJSON(t)
		if rel["transaction_details"] {
			data[i].TransactionDetails = detailsJSON{shown: true, d: t.Details}
		}
		if c, ok := page.Customers[t.CustomerID]; ok {
			data[i].Customer = toCustomerJSON(c, false, nil)
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
	page, err := s.Transactions.History(r.Context(), loyalty.Business{ID: rc.businessID}, customerID, lq,
		loyalty.TransactionWith{Branches: rel["branch"], Coupons: include["ecom_coupon"]})
	if err != nil {
		return err
	}
	data := make([]transactionJSON, len(page.Entries))
	for i, t := range page.Entries {
		data[i] = toTransactionJSON(t)
		if rel["transaction_details"] {
			data[i].TransactionDetails = detailsJSON{shown: true, d: t.Details}
		}
		if b, ok := page.Branches[t.BranchID]; ok {
			bj := toBranchJSON(b)
			data[i].Branch = &bj
		}
		if cp, ok := page.Coupons[t.CouponID]; ok {
			data[i].EcomCoupon = toCouponJSON(cp)
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
