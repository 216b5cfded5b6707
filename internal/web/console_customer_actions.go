package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The managers' actions on one customer. Each posts, is carried out by
// console.CustomerDesk in one audited transaction, and redirects back to
// the profile; the destructive ones ask first (see confirm.go).

// customerPath is the profile's path of the customer the request names.
func customerPath(r *http.Request) string { return "/business/customers/" + r.PathValue("id") }

// editForm is a customer's details as the edit form shows them.
func editForm(c loyalty.Customer) map[string]string {
	return map[string]string{"first_name": c.FirstName, "last_name": c.LastName, "email": c.Email, "phone": c.Phone,
		"birth_date": c.BirthDate, "language": c.Language, "gender": c.Gender}
}

// editPage is the body of the customer_edit template.
type editPage struct {
	ID, Name  string
	Languages []string
	Genders   []string
}

func (s *Server) customerEdit(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	prof, err := s.Desk.Profile(r.Context(), a, r.PathValue("id"), 1)
	if err != nil {
		return err
	}
	return s.renderEdit(w, r, a, http.StatusOK, prof.View.Customer, editForm(prof.View.Customer), nil, "")
}

func (s *Server) renderEdit(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, c loyalty.Customer,
	form map[string]string, fields map[string][]string, msg string) error {
	v := s.consoleView(r, a, "Edit "+displayName(c))
	v.Form, v.Fields, v.Error = form, fields, msg
	v.Data = editPage{ID: c.ID, Name: displayName(c), Languages: loyalty.Languages, Genders: loyalty.Genders}
	s.render(w, r, status, "customer_edit", v)
	return nil
}

// optText is a form field as an update sends it: an empty field clears
// the value.
func optText(v string) loyalty.Opt[string] { return loyalty.Some(v) }

func (s *Server) customerEditSave(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f := r.PostForm
	in := loyalty.CustomerInput{FirstName: optText(f.Get("first_name")), LastName: optText(f.Get("last_name")),
		Email: optText(f.Get("email")), Phone: optText(f.Get("phone")), BirthDate: optText(f.Get("birth_date")),
		Language: optText(f.Get("language")), Gender: optText(f.Get("gender"))}
	if f.Get("country_code") != "" {
		in.CountryCode = loyalty.Some(f.Get("country_code"))
	}
	_, err := s.Desk.Update(r.Context(), a, r.PathValue("id"), in)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		prof, perr := s.Desk.Profile(r.Context(), a, r.PathValue("id"), 1)
		if perr != nil {
			return perr
		}
		form := map[string]string{}
		for k := range editForm(loyalty.Customer{}) {
			form[k] = f.Get(k)
		}
		return s.renderEdit(w, r, a, httpapi.StatusOf(e.Code), prof.View.Customer, form, e.Fields, "Please correct the fields marked below.")
	} else if err != nil {
		return err
	}
	redirect(w, customerPath(r)+"?notice=customer_saved")
	return nil
}

func (s *Server) customerEnable(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if err := s.Desk.SetEnabled(r.Context(), a, r.PathValue("id"), true); err != nil {
		return err
	}
	redirect(w, customerPath(r)+"?notice=customer_enabled")
	return nil
}

// customerConfirm asks before an action on the customer the path names.
func (s *Server) customerConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor, p func(name string) confirmPage) error {
	prof, err := s.Desk.Profile(r.Context(), a, r.PathValue("id"), 1)
	if err != nil {
		return err
	}
	cp := p(displayName(prof.View.Customer))
	cp.Back = customerPath(r)
	s.renderConfirm(w, r, s.consoleView(r, a, ""), cp)
	return nil
}

func (s *Server) customerDisableConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.customerConfirm(w, r, a, func(name string) confirmPage {
		return confirmPage{Heading: "Disable " + name + "?", Message: name + " is kept, with the balance and the history.",
			Effects: []string{"The customer is marked disabled in the console and the API.", "You can enable them again at any time."},
			Submit:  "Disable customer"}
	})
}

func (s *Server) customerDisable(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if !confirmed(w, r) {
		return nil
	}
	if err := s.Desk.SetEnabled(r.Context(), a, r.PathValue("id"), false); err != nil {
		return err
	}
	redirect(w, customerPath(r)+"?notice=customer_disabled")
	return nil
}

func (s *Server) customerDeleteConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.customerConfirm(w, r, a, func(name string) confirmPage {
		return confirmPage{Heading: "Delete " + name + "?", Message: name + " stops being a customer of your business.",
			Effects: []string{"The balance can no longer be used, and the customer disappears from the search.",
				"The ledger keeps every entry. The same person can join again later, starting afresh."},
			Submit: "Delete customer"}
	})
}

func (s *Server) customerDelete(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if !confirmed(w, r) {
		return nil
	}
	if err := s.Desk.Delete(r.Context(), a, r.PathValue("id")); err != nil {
		return err
	}
	redirect(w, "/business/customers?notice=customer_deleted")
	return nil
}

func (s *Server) customerPoints(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f := r.PostForm
	_, err := s.Desk.AdjustPoints(r.Context(), a, r.PathValue("id"), f.Get("points"), f.Get("reason"))
	if err != nil {
		return s.customerFailed(w, r, a, err, map[string]string{"points": f.Get("points"), "reason": f.Get("reason")})
	}
	redirect(w, customerPath(r)+"?notice=points_adjusted")
	return nil
}

// customerCoupon issues a coupon; one that costs points is issued only
// once the page saying so is confirmed (no points are ever taken
// silently), unless it is given as a gift, with a reason, taking none.
func (s *Server) customerCoupon(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	chosen := r.Form.Get("offer") // the form's, or the confirmation's address
	offer, _ := strconv.ParseInt(chosen, 10, 64)
	if how := r.PostForm.Get("how"); how == "gift" {
		reason := r.PostForm.Get("gift_reason")
		if _, err := s.Desk.GiftCoupon(r.Context(), a, r.PathValue("id"), offer, reason); err != nil {
			return s.customerFailed(w, r, a, err, map[string]string{"offer": chosen, "how": how, "gift_reason": reason})
		}
		redirect(w, customerPath(r)+"?notice=coupon_gifted")
		return nil
	}
	if r.PostForm.Get("confirm") != "yes" {
		cost, err := s.Desk.CouponCost(r.Context(), a, r.PathValue("id"), offer)
		if err != nil {
			return s.customerFailed(w, r, a, err, map[string]string{"offer": chosen})
		}
		if p := cost.Offer.Points; p > 0 {
			name, bal := displayName(cost.Customer), cost.Customer.Balance.Points
			effects := []string{fmt.Sprintf("%s holds %d points now; %d after.", name, bal, bal-p)}
			if bal < p {
				effects = []string{fmt.Sprintf("%s holds %d points: not enough, so nothing will be issued.", name, bal)}
			}
			s.renderConfirm(w, r, s.consoleView(r, a, ""), confirmPage{Heading: "Issue “" + cost.Offer.Title + "” to " + name + "?",
				Message: fmt.Sprintf("This coupon costs %d points, taken from %s's balance.", p, name), Effects: effects,
				Action: r.URL.Path + "?offer=" + strconv.FormatInt(offer, 10), Submit: fmt.Sprintf("Issue and take %d points", p),
				Back: customerPath(r)})
			return nil
		}
	}
	if _, err := s.Desk.IssueCoupon(r.Context(), a, r.PathValue("id"), offer); err != nil {
		return s.customerFailed(w, r, a, err, map[string]string{"offer": chosen})
	}
	redirect(w, customerPath(r)+"?notice=coupon_issued")
	return nil
}

func (s *Server) customerWelcome(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if err := s.Desk.ResendWelcome(r.Context(), a, r.PathValue("id")); err != nil {
		return s.customerFailed(w, r, a, err, nil)
	}
	redirect(w, customerPath(r)+"?notice=welcome_sent")
	return nil
}

// txID reads the transaction id of the path.
func txID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("tx"), 10, 64)
	if err != nil || id <= 0 {
		return 0, loyalty.Errorf(loyalty.ENotFound, "Transaction not found.")
	}
	return id, nil
}

func (s *Server) customerCancelConfirm(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	id, err := txID(r)
	if err != nil {
		return err
	}
	n := strconv.FormatInt(id, 10)
	return s.customerConfirm(w, r, a, func(name string) confirmPage {
		return confirmPage{Heading: "Cancel transaction " + n + "?", Message: "A cancellation entry reverses transaction " + n + " of " + name + ".",
			Effects: []string{"The points and gift-card amounts it moved are moved back.",
				"The original entry stays in the history, with the cancellation after it. A transaction is cancelled once."},
			Submit: "Cancel transaction"}
	})
}

func (s *Server) customerCancel(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	if !confirmed(w, r) {
		return nil
	}
	id, err := txID(r)
	if err != nil {
		return err
	}
	if _, err := s.Desk.Cancel(r.Context(), a, r.PathValue("id"), id); err != nil {
		return s.customerFailed(w, r, a, err, nil)
	}
	redirect(w, customerPath(r)+"?notice=cancelled")
	return nil
}

// customerConsent records the marketing consent the customer gave the
// staff member.
func (s *Server) customerConsent(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	f := r.PostForm
	ch := console.ConsentChoice{Email: f.Get("allow_email") == "on", SMS: f.Get("allow_sms") == "on", Push: f.Get("allow_push") == "on"}
	if _, err := s.Desk.SetConsent(r.Context(), a, r.PathValue("id"), ch); err != nil {
		return s.customerFailed(w, r, a, err, nil)
	}
	redirect(w, customerPath(r)+"?notice=consent_saved")
	return nil
}
