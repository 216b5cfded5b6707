package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The referral page is where the referral_link of a customer's referral
// programs leads: a friend opens it, reads what the business offers, and
// joins with an e-mail address. Joining creates the customer with the
// referral, exactly as POST /customers with referral does, so the same
// rules hold (program enabled, referrer a customer, one referral per
// person) and the welcome message goes out the same way.

func (s *Server) referralRoutes(mux *http.ServeMux) {
	mux.Handle("GET /referrals/{program_id}", s.page(s.referralForm))
	mux.Handle("POST /referrals/{program_id}", s.page(s.referralJoin))
	mux.Handle("GET /referrals/{program_id}/joined", s.page(s.referralJoined))
}

// referralPage is the body of the referral templates.
type referralPage struct {
	Name       string                  // the business's
	Business   loyalty.Business        // whose currency amounts are in
	Profile    loyalty.BusinessProfile // the business's about and images
	Program    loyalty.ReferralProgram
	ReferrerID string
	Referrer   string // the referrer's first name, when the business knows it
	Action     string
}

func newReferralPage(inv loyalty.Invitation) referralPage {
	return referralPage{Name: inv.Business.Name, Business: inv.Business, Program: inv.Program, ReferrerID: inv.Referrer.ID,
		Referrer: inv.Referrer.User.FirstName, Action: "/referrals/" + strconv.FormatInt(inv.Program.ID, 10)}
}

// referralView is the view of a referral page in the business's brand.
func (s *Server) referralView(r *http.Request, inv loyalty.Invitation, title string) (view, error) {
	p := newReferralPage(inv)
	prof, err := s.Console.Profiles.Profile(r.Context(), inv.Business.ID)
	if err != nil {
		return view{}, err
	}
	p.Profile = prof
	return view{Title: title, Narrow: true, Public: true, Brand: newBrandStyle(prof.BrandColor),
		Images: imageOrigins(prof.Logo, prof.Cover), Data: p}, nil
}

// programID is the program of the link; a malformed one is 0, which no
// program has.
func programID(r *http.Request) int64 {
	id, _ := strconv.ParseInt(r.PathValue("program_id"), 10, 64)
	return id
}

func (s *Server) referralForm(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.Customers.Invitation(r.Context(), programID(r), r.URL.Query().Get("referrer_id"))
	if err != nil {
		return err
	}
	v, err := s.referralView(r, inv, "Join "+inv.Business.Name)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "referral", v)
	return nil
}

// referralJoin creates the customer with the referral. Posts are budgeted
// per client IP like sign-up, so the form cannot be used to probe which
// addresses are members.
func (s *Server) referralJoin(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.Customers.Invitation(r.Context(), programID(r), r.PostForm.Get("referrer_id"))
	if err != nil {
		return err
	}
	v, err := s.referralView(r, inv, "Join "+inv.Business.Name)
	if err != nil {
		return err
	}
	p := v.Data.(referralPage)
	f := r.PostForm
	v.Form = map[string]string{"first_name": f.Get("first_name"), "email": f.Get("email")}
	fail := func(status int, msg string, fields map[string][]string) error {
		v.Error, v.Fields = msg, fields
		s.render(w, r, status, "referral", v)
		return nil
	}
	if ok, retry := s.allowPost(r); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		return fail(http.StatusTooManyRequests, "Too many attempts from your network. Wait a minute and try again.", nil)
	}
	if strings.TrimSpace(f.Get("email")) == "" {
		return fail(http.StatusUnprocessableEntity, "Please correct the fields marked below.",
			map[string][]string{"email": {"Enter your e-mail address."}})
	}
	in := loyalty.CustomerInput{Email: loyalty.Some(f.Get("email"))}
	if name := strings.TrimSpace(f.Get("first_name")); name != "" {
		in.FirstName = loyalty.Some(name)
	}
	_, err = s.Customers.Join(r.Context(), inv, in)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		fields := map[string][]string{}
		msg := "Please correct the fields marked below."
		for k, v := range e.Fields {
			switch {
			case k == "email" || k == "first_name":
				fields[k] = v
			case strings.HasPrefix(k, "referral"):
				// The program closed or the referrer left since the page
				// was shown, or this person was referred before.
				msg = "This invitation cannot be used for you: " + strings.Join(v, " ")
			default:
				msg = strings.Join(v, " ")
			}
		}
		return fail(httpapi.StatusOf(e.Code), msg, fields)
	} else if err != nil {
		return err
	}
	redirect(w, p.Action+"/joined")
	return nil
}

// referralJoined thanks the new member; it shows nothing about them.
func (s *Server) referralJoined(w http.ResponseWriter, r *http.Request) error {
	inv, err := s.Customers.ReferralOffer(r.Context(), programID(r))
	if err != nil {
		return err
	}
	v, err := s.referralView(r, inv, "Welcome to "+inv.Business.Name)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "referral_joined", v)
	return nil
}
