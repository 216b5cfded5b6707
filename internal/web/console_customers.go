package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The console's customer pages: the search, and each customer's profile
// with the actions a manager takes on it. Cashiers may search and read;
// every action is the manager's (console.CustomerDesk checks it again).

func (s *Server) customerRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/customers", s.console(loyalty.PermCounter, s.customerSearch))
	mux.Handle("GET /business/customers/{id}", s.console(loyalty.PermCounter, s.customerProfile))
	mux.Handle("GET /business/customers/{id}/edit", s.console(loyalty.PermManage, s.customerEdit))
	mux.Handle("POST /business/customers/{id}/edit", s.console(loyalty.PermManage, s.customerEditSave))
	mux.Handle("POST /business/customers/{id}/enable", s.console(loyalty.PermManage, s.customerEnable))
	mux.Handle("GET /business/customers/{id}/disable", s.console(loyalty.PermManage, s.customerDisableConfirm))
	mux.Handle("POST /business/customers/{id}/disable", s.console(loyalty.PermManage, s.customerDisable))
	mux.Handle("GET /business/customers/{id}/delete", s.console(loyalty.PermManage, s.customerDeleteConfirm))
	mux.Handle("POST /business/customers/{id}/delete", s.console(loyalty.PermManage, s.customerDelete))
	mux.Handle("POST /business/customers/{id}/points", s.console(loyalty.PermManage, s.customerPoints))
	mux.Handle("POST /business/customers/{id}/coupons", s.console(loyalty.PermManage, s.customerCoupon))
	mux.Handle("POST /business/customers/{id}/welcome", s.console(loyalty.PermManage, s.customerWelcome))
	mux.Handle("POST /business/customers/{id}/consent", s.console(loyalty.PermCounter, s.customerConsent))
	mux.Handle("POST /business/customers/{id}/tags", s.console(loyalty.PermManage, s.customerTags))
	mux.Handle("GET /business/customers/{id}/transactions/{tx}/cancel", s.console(loyalty.PermManage, s.customerCancelConfirm))
	mux.Handle("POST /business/customers/{id}/transactions/{tx}/cancel", s.console(loyalty.PermManage, s.customerCancel))
}

// searchPage is the body of the customers template.
type searchPage struct {
	console.SearchResult
	Searched bool
	Business loyalty.Business // whose currency amounts are in
	Choices  []levelChoice    // the tier filter's levels
	Export   string           // the link to these customers as CSV, for a manager
	Prev     string           // links to the neighbouring pages, "" at either end
	Next     string
	Segment  *segmentHead // the segment whose customers are shown; nil for a search
}

// levelChoice is a tier level as the filter offers it.
type levelChoice struct{ Value, Label string }

// businessProfile is the actor's business's profile (its time zone).
func (s *Server) businessProfile(r *http.Request, a loyalty.Actor) (loyalty.BusinessProfile, error) {
	return s.Console.Profiles.Profile(r.Context(), a.BusinessID)
}

// customerSearch finds customers by the start of a name, e-mail or phone,
// with filters, 25 to a page.
func (s *Server) customerSearch(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	q := r.URL.Query()
	if q.Has("segment") {
		return s.segmentCustomers(w, r, a)
	}
	in := console.CustomerSearch{Query: q.Get("q"), Tier: q.Get("tier"), Enabled: q.Get("enabled"),
		JoinedFrom: q.Get("joined_from"), JoinedTo: q.Get("joined_to")}
	in.Page, _ = strconv.Atoi(q.Get("page"))
	b, loc, err := s.businessIn(r, a)
	if err != nil {
		return err
	}
	v := s.consoleView(r, a, "Customers")
	v.Form = map[string]string{"q": in.Query, "tier": in.Tier, "enabled": in.Enabled, "joined_from": in.JoinedFrom, "joined_to": in.JoinedTo}
	res, err := s.Desk.Search(r.Context(), a, in, loc)
	status := http.StatusOK
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		v.Fields, v.Error, status = e.Fields, "Please correct the filters marked below.", httpapi.StatusOf(e.Code)
		if res.Tier == nil && len(e.Fields["tier"]) > 0 {
			// No program, no tier filter on the page to mark.
			v.Error = e.Fields["tier"][0]
		}
	} else if err != nil {
		return err
	}
	p := searchPage{SearchResult: res, Searched: status == http.StatusOK, Business: b}
	if res.Tier != nil {
		p.Choices = append(p.Choices, levelChoice{"none", "No level yet"})
		for _, l := range res.Tier.Levels {
			p.Choices = append(p.Choices, levelChoice{strconv.FormatInt(l.ID, 10), l.Name})
		}
	}
	link := func(page int) string {
		u := url.Values{}
		for k, val := range v.Form {
			if val != "" {
				u.Set(k, val)
			}
		}
		u.Set("page", strconv.Itoa(page))
		return "/business/customers?" + u.Encode()
	}
	if a.Can(loyalty.PermManage) {
		u := url.Values{}
		for _, k := range []string{"q", "enabled", "joined_from", "joined_to"} {
			if v.Form[k] != "" {
				u.Set(k, v.Form[k])
			}
		}
		p.Export = "/business/customers/export?" + u.Encode()
	}
	if res.Page > 1 {
		p.Prev = link(res.Page - 1)
	}
	if res.Page < res.Pages {
		p.Next = link(res.Page + 1)
	}
	v.Data = p
	s.render(w, r, status, "customers", v)
	return nil
}

// customerPage is the body of the customer template.
type customerPage struct {
	console.CustomerProfile
	Business loyalty.Business // whose currency amounts are in
	Manager  bool             // the actor may take the managers' actions
	Name     string           // how the page names the customer
	Entries  []ledgerRow      // the ledger's page
	Prev     string
	Next     string
	Offers   []loyalty.CustomerOffer // coupon offers a manager may issue
	Links    []referralLink
	Tags     console.CustomerTags
}

// ledgerRow is one ledger entry as the profile shows it.
type ledgerRow struct {
	loyalty.Transaction
	Cancel string // the link to cancel it, for a manager; "" when it cannot be
}

// referralLink is a customer's referral link to a program.
type referralLink struct{ Program, URL string }

// displayName is a customer as the pages name them.
func displayName(c loyalty.Customer) string {
	if n := strings.TrimSpace(c.FirstName + " " + c.LastName); n != "" {
		return n
	}
	if c.Email != "" {
		return c.Email
	}
	if c.Phone != "" {
		return c.Phone
	}
	return "Customer"
}

func (s *Server) customerProfile(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.renderCustomer(w, r, a, http.StatusOK, nil, nil, "")
}

// renderCustomer shows a customer's profile; an action refused for its
// input shows it again with the fields marked.
func (s *Server) renderCustomer(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int,
	fields map[string][]string, form map[string]string, msg string) error {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	prof, err := s.Desk.Profile(r.Context(), a, r.PathValue("id"), page)
	if err != nil {
		return err
	}
	b, err := s.consoleBusiness(r, a)
	if err != nil {
		return err
	}
	c := prof.View.Customer
	base := "/business/customers/" + c.ID
	p := customerPage{CustomerProfile: prof, Business: b, Manager: a.Can(loyalty.PermManage), Name: displayName(c)}
	if p.Tags, err = s.Desk.Tags(r.Context(), a, c.ID); err != nil {
		return err
	}
	for _, e := range prof.Ledger.Entries {
		row := ledgerRow{Transaction: e}
		if p.Manager && e.Cancellable() {
			row.Cancel = base + "/transactions/" + strconv.FormatInt(e.ID, 10) + "/cancel"
		}
		p.Entries = append(p.Entries, row)
	}
	if prof.Page > 1 {
		p.Prev = base + "?page=" + strconv.Itoa(prof.Page-1)
	}
	if prof.Page < prof.Pages {
		p.Next = base + "?page=" + strconv.Itoa(prof.Page+1)
	}
	for _, o := range prof.Offers {
		if slices.Contains(o.Actions, loyalty.IntentGetCoupon) {
			p.Offers = append(p.Offers, o)
		}
	}
	for _, rp := range prof.View.ReferralPrograms {
		if rp.LinkPath != "" {
			p.Links = append(p.Links, referralLink{Program: rp.Program.RuleName, URL: s.siteURL(r, true) + rp.LinkPath})
		}
	}
	v := s.consoleView(r, a, p.Name)
	v.Fields, v.Form, v.Error = fields, form, msg
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	v.Data = p
	s.render(w, r, status, "customer", v)
	return nil
}

// customerFailed shows the profile again when an action was refused for
// its input (422), or passes any other error on.
func (s *Server) customerFailed(w http.ResponseWriter, r *http.Request, a loyalty.Actor, err error, form map[string]string) error {
	e, ok := err.(*loyalty.Error)
	if !ok || e.Code != loyalty.EInvalid {
		return err
	}
	msg := e.Message
	if len(e.Fields) > 0 {
		msg = "The action was not taken: please correct the fields marked below."
		// Messages about what the page has no field for are shown on top.
		var others []string
		for f, msgs := range e.Fields {
			if _, shown := form[f]; !shown {
				others = append(others, msgs...)
			}
		}
		if len(others) > 0 {
			msg = "The action was not taken. " + strings.Join(others, " ")
		}
	}
	return s.renderCustomer(w, r, a, httpapi.StatusOf(e.Code), e.Fields, form, msg)
}
