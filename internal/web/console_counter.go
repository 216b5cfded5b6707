package web

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The counter page is the cashier's: find the customer by what they show
// (a code field a USB scanner types into, ending with Enter), see what a
// purchase earns before recording it, redeem, claim a coupon, sell or pay
// with a gift card. Each action's form carries an Idempotency-Key made
// when the page was drawn, so a double click or a resubmitted form acts
// once; every action redirects, so a reload acts never.

func (s *Server) counterRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/counter", s.console(loyalty.PermCounter, s.counter))
	mux.Handle("GET /business/counter/{id}", s.console(loyalty.PermCounter, s.counterCustomer))
	mux.Handle("POST /business/counter/{id}/{action}", s.console(loyalty.PermCounter, s.counterAct))
	mux.Handle("POST /business/counter/{id}/handover", s.console(loyalty.PermCounter, s.counterHandOver))
	mux.Handle("POST /business/counter/enrol", s.console(loyalty.PermCounter, s.counterEnrol))
}

// findPage is the body of the counter template.
type findPage struct {
	Code     string
	Searched bool
	Found    []loyalty.Customer
	ByName   bool             // the code was read as a name: Found is a list to pick from
	More     bool             // more customers have the name than Found lists
	Enrol    bool             // the new customer's form is open (nobody found, or it was refused)
	Focus    string           // the form's field that takes the cursor, "" for the search's
	Business loyalty.Business // whose currency amounts are in
}

// counter finds the customer a code names; one found by what they show
// (not by a name, which strangers may share) is served at once.
func (s *Server) counter(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.renderCounter(w, r, a, http.StatusOK, strings.TrimSpace(r.URL.Query().Get("code")), nil, nil, "")
}

// renderCounter shows the counter's search for code, with the new
// customer's form prefilled from it, or as it was sent (form) when it
// was refused (fields).
func (s *Server) renderCounter(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, code string,
	form map[string]string, fields map[string][]string, msg string) error {
	v := s.consoleView(r, a, "Counter")
	v.Form, v.Fields, v.Error = enrolForm(console.EnrolmentFrom(code)), fields, msg
	if form != nil {
		v.Form = form
	}
	v.Form["code"] = code
	p := findPage{Code: code, Enrol: fields != nil}
	if code != "" {
		m, err := s.Desk.Find(r.Context(), a, code)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			v.Fields, status = e.Fields, httpapi.StatusOf(e.Code)
		} else if err != nil {
			return err
		} else if len(m.Customers) == 1 && !m.ByName && form == nil {
			to := "/business/counter/" + m.Customers[0].ID
			switch {
			case m.Coupon != nil:
				to += "?coupon=" + strconv.FormatInt(m.Coupon.ID, 10)
			case m.Voucher != nil:
				to += "?voucher=" + url.QueryEscape(m.Voucher.Code)
			}
			redirect(w, to)
			return nil
		}
		p.Searched, p.Found, p.ByName, p.More = v.Fields["code"] == nil, m.Customers, m.ByName, m.More
		p.Enrol = p.Enrol || (p.Searched && len(m.Customers) == 0)
	}
	if p.Enrol {
		p.Focus = enrolFocus(v.Form, fields)
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	p.Business = b
	v.Data = p
	s.render(w, r, status, "counter", v)
	return nil
}

// servePage is the body of the counter_customer template.
type servePage struct {
	console.CounterCustomer
	Name     string
	Business loyalty.Business  // whose currency amounts are in
	Keys     map[string]string // a fresh Idempotency-Key per form
	Preview  *console.SalePreview
	Scanned  *loyalty.Coupon // the coupon whose code was scanned, when it can be claimed
	// Voucher is the member's voucher whose code was scanned; HandedNow
	// is set when this scan handed it over. Vouchers are those waiting.
	Voucher   *voucherView
	HandedNow bool
	Vouchers  []voucherView
	Done      *loyalty.Transaction
	// Lines are the sale's basket as typed or scanned so far; Again is the
	// address that shows them in the form again (the preview's Change).
	Lines []console.SaleLine
	Again string
	// Enrolled is set when the customer was just enrolled (or found by
	// the enrolment): the sale is next, so the amount takes the cursor.
	Enrolled bool
}

// counterActions are the actions' forms, by the path's last segment.
var counterActions = []string{console.CounterSale, console.CounterRedeem, console.CounterClaim,
	console.CounterGiftcardSell, console.CounterGiftcardPay}

// counterNotices are what the page says after each action.
var counterNotices = map[string]string{
	console.CounterSale: "Sale recorded.", console.CounterRedeem: "Reward redeemed.", console.CounterClaim: "Coupon claimed.",
	console.CounterGiftcardSell: "Gift-card credit sold.", console.CounterGiftcardPay: "Paid with the gift card.",
}

// newKey is an Idempotency-Key for one rendered form.
func newKey() string { return "console-" + base64.RawURLEncoding.EncodeToString(randomBytes(16)) }

func (s *Server) counterCustomer(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.renderServe(w, r, a, http.StatusOK, nil, nil, "")
}

// renderServe shows the counter for one customer: a refused action shows
// it again with the fields marked and new keys.
func (s *Server) renderServe(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int,
	fields map[string][]string, form map[string]string, msg string) error {
	scanned, _ := loyalty.NormalVoucherCode(r.URL.Query().Get("voucher"))
	cc, err := s.Desk.Serve(r.Context(), a, r.PathValue("id"), scanned)
	if err != nil {
		return err
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	p := servePage{CounterCustomer: cc, Name: displayName(cc.Customer), Business: b, Keys: map[string]string{}}
	p.Enrolled = r.Method == http.MethodGet && (q.Get("notice") == "customer_enrolled" || q.Get("notice") == "customer_existing")
	v := s.consoleView(r, a, "Counter · "+p.Name)
	v.Fields, v.Form, v.Error = fields, form, msg
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	if r.Method == http.MethodGet {
		p.Lines = saleLines(q)
	} else if v.Form["form"] == console.CounterSale {
		p.Lines = saleLines(r.PostForm)
	}
	amount := q.Get("amount")
	// Enter in the SKU field adds its line (add, with a SKU scanned);
	// elsewhere it asks for the points.
	adding := q.Get("add") != "" && strings.TrimSpace(q.Get("scan")) != ""
	if r.Method == http.MethodGet && (amount != "" || len(p.Lines) > 0) && !adding && q.Get("edit") == "" {
		v.Form["amount"] = amount
		pv, err := s.Desk.PreviewSale(r.Context(), a, cc.Customer.ID, amount, p.Lines)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			v.Fields, status = e.Fields, httpapi.StatusOf(e.Code)
		} else if err != nil {
			return err
		} else {
			p.Preview = &pv
			again := url.Values{"edit": {"1"}}
			if len(p.Lines) == 0 {
				again.Set("amount", amount)
			}
			for _, l := range p.Lines {
				again.Add("item_sku", l.SKU)
				again.Add("item_qty", l.Quantity)
				again.Add("item_price", l.Price)
			}
			p.Again = "/business/counter/" + cc.Customer.ID + "?" + again.Encode()
		}
	} else if amount != "" {
		v.Form["amount"] = amount
	}
	if id, _ := strconv.ParseInt(q.Get("coupon"), 10, 64); id > 0 {
		if i := slices.IndexFunc(cc.Coupons, func(c loyalty.Coupon) bool { return c.ID == id }); i >= 0 {
			p.Scanned = &cc.Coupons[i]
		}
	}
	if len(cc.Vouchers) > 0 {
		loc, err := s.location(r, a)
		if err != nil {
			return err
		}
		for _, v := range cc.Vouchers {
			vv := newVoucherView(v, cc.Now, loc)
			if v.Code == scanned {
				p.Voucher, p.HandedNow = &vv, q.Get("handed") == "1"
			} else {
				p.Vouchers = append(p.Vouchers, vv)
			}
		}
	}
	// The entry an action just made, when it is one of the latest.
	if done, _ := strconv.ParseInt(q.Get("done"), 10, 64); done > 0 {
		if i := slices.IndexFunc(cc.Recent, func(t loyalty.Transaction) bool { return t.ID == done }); i >= 0 {
			p.Done = &cc.Recent[i]
			v.Notice = counterNotices[q.Get("action")]
		}
	}
	for _, action := range counterActions {
		p.Keys[action] = newKey()
	}
	v.Script = "counter.js"
	v.Data = p
	s.render(w, r, status, "counter_customer", v)
	return nil
}

// requestKey is the Idempotency-Key a form sent, with the fingerprint of
// what it asked for: the same key with other values is refused.
func requestKey(r *http.Request) *loyalty.Idempotency {
	key := r.PostForm.Get("idempotency_key")
	if key == "" || len(key) > 255 {
		return nil
	}
	names := make([]string, 0, len(r.PostForm))
	for k := range r.PostForm {
		if k != "csrf_token" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	h.Write([]byte("console " + r.URL.Path + "\n"))
	for _, k := range names {
		h.Write([]byte(url.Values{k: r.PostForm[k]}.Encode() + "\n"))
	}
	return &loyalty.Idempotency{Key: key, Hash: h.Sum(nil)}
}

// counterAct performs one of the counter's actions and shows the
// customer again with what it did.
func (s *Server) counterAct(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	action := r.PathValue("action")
	if !slices.Contains(counterActions, action) {
		return loyalty.Errorf(loyalty.ENotFound, "Not found.")
	}
	f := r.PostForm
	in := console.CounterAction{Amount: f.Get("amount")}
	if action == console.CounterSale {
		in.Items = saleLines(f)
	}
	in.RewardID, _ = strconv.ParseInt(f.Get("reward"), 10, 64)
	in.Quantity, _ = strconv.ParseInt(f.Get("quantity"), 10, 64)
	in.CouponID, _ = strconv.ParseInt(f.Get("coupon"), 10, 64)
	in.GiftcardID, _ = strconv.ParseInt(f.Get("giftcard"), 10, 64)
	t, err := s.Desk.Act(r.Context(), a, r.PathValue("id"), action, in, requestKey(r))
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		form := map[string]string{"form": action}
		for k := range f {
			form[k] = f.Get(k)
		}
		msg := e.Message
		for _, msgs := range e.Fields {
			msg = strings.Join(msgs, " ")
			break
		}
		return s.renderServe(w, r, a, httpapi.StatusOf(e.Code), e.Fields, form, "Not done: "+msg)
	} else if err != nil {
		return err
	}
	redirect(w, "/business/counter/"+t.CustomerID+"?action="+action+"&done="+strconv.FormatInt(t.ID, 10))
	return nil
}

// saleLines reads a sale's basket from a form: the lines (item_sku,
// item_qty, item_price, side by side; a quantity of 0 drops its line) and
// the SKU just typed or scanned (scan), which adds a unit to its line or
// a line of its own.
func saleLines(f url.Values) []console.SaleLine {
	var out []console.SaleLine
	skus, qtys, prices := f["item_sku"], f["item_qty"], f["item_price"]
	for i, sku := range skus {
		l := console.SaleLine{SKU: strings.TrimSpace(sku), Quantity: "1"}
		if i < len(qtys) && strings.TrimSpace(qtys[i]) != "" {
			l.Quantity = strings.TrimSpace(qtys[i])
		}
		if i < len(prices) {
			l.Price = strings.TrimSpace(prices[i])
		}
		if l.SKU != "" && l.Quantity != "0" {
			out = append(out, l)
		}
	}
	if scan := strings.TrimSpace(f.Get("scan")); scan != "" {
		if i := slices.IndexFunc(out, func(l console.SaleLine) bool { return l.SKU == scan }); i >= 0 {
			if n, err := strconv.ParseInt(out[i].Quantity, 10, 64); err == nil {
				out[i].Quantity = strconv.FormatInt(n+1, 10)
			}
		} else {
			out = append(out, console.SaleLine{SKU: scan, Quantity: "1"})
		}
	}
	return out
}

// counterHandOver hands over what a member redeemed, by the voucher's
// code, and shows the customer with the voucher as it now stands.
func (s *Server) counterHandOver(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	v, first, err := s.Desk.HandOver(r.Context(), a, r.PathValue("id"), r.PostForm.Get("code"))
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		msg := e.Message
		for _, msgs := range e.Fields {
			msg = strings.Join(msgs, " ")
		}
		return s.renderServe(w, r, a, httpapi.StatusOf(e.Code), e.Fields, map[string]string{"form": "handover"}, "Not handed over: "+msg)
	} else if err != nil {
		return err
	}
	to := "/business/counter/" + r.PathValue("id") + "?voucher=" + url.QueryEscape(v.Code)
	if first {
		to += "&handed=1"
	}
	redirect(w, to)
	return nil
}

// voucherView is a member's voucher as the counter shows it, its times in
// the business's time zone.
type voucherView struct {
	Code, Title, State    string
	Quantity              int64
	Redeemed, Expires     string
	HandedAt, HandedBy    string
	Waiting, Handed, Gone bool
}

func newVoucherView(v loyalty.Voucher, now time.Time, loc *time.Location) voucherView {
	when := func(t time.Time) string {
		t = t.In(loc)
		if y, m, d := t.Date(); y == now.In(loc).Year() && m == now.In(loc).Month() && d == now.In(loc).Day() {
			return "today at " + t.Format("15:04")
		}
		return t.Format("Jan 2 at 15:04")
	}
	out := voucherView{Code: v.Code, Title: "reward #" + strconv.FormatInt(v.RewardID, 10), State: v.State(now),
		Quantity: v.Quantity, Redeemed: when(v.CreatedAt), Expires: when(v.ExpiresAt)}
	if v.Reward != nil {
		out.Title = v.Reward.Title
	}
	switch out.State {
	case loyalty.VoucherIssued:
		out.Waiting = true
	case loyalty.VoucherHandedOver:
		out.Handed, out.HandedAt, out.HandedBy = true, when(v.HandedOverAt), v.HandedOverBy
	default:
		out.Gone = true
	}
	return out
}
