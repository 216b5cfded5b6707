package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/ratelimit"
)

// hidden is a hidden form field.
type hidden struct{ Name, Value string }

// signInForm is the body of the sign-in template.
type signInForm struct {
	Heading string
	Intro   string
	Action  string
	Submit  string
	Hidden  []hidden
	SignUp  bool // offer the developer sign-up link
	Owner   bool // tell a new installation's owner which account to use
}

// notices are the messages a redirect can ask a page to show; only these
// fixed texts can appear, never text from the URL.
var notices = map[string]string{
	"signedout":       "You are signed out.",
	"welcome":         "Your developer account is ready. Register your first app below.",
	"approved":        "The app is approved: it can now obtain tokens.",
	"suspended":       "The app is suspended: its tokens stopped working.",
	"rotated":         "A new Application Key was issued. The old key no longer works.",
	"revoked":         "The app's access was revoked: its access and refresh tokens no longer work.",
	"invited":         "The invitation is on its way. It can be accepted for 72 hours.",
	"reinvited":       "A new invitation is on its way; the earlier one no longer works.",
	"role":            "The role was changed. It applies from the member's next page.",
	"removed":         "The member was removed and signed out.",
	"joined":          "Welcome aboard! Sign in with your e-mail address and the password you chose.",
	"password":        "Your password was changed. Your other browsers were signed out.",
	"resetsent":       "If an account uses that address, an e-mail with a reset token is on its way. It works once, for one hour.",
	"reset":           "Your password was reset and every browser signed out. Sign in with the new password.",
	"profile":         "The profile was saved. Your referral page and your customers' e-mails use it from now on.",
	"import_uploaded": "The file was uploaded and checked. Nothing is imported until you start it.",
	"import_mapped":   "The columns were matched and every row checked again. Nothing is imported until you start it.",
	"import_started":  "The import has started. It runs in the background; this page follows it.",
	// The customer pages and the counter.
	"customer_saved":    "The customer's details were saved.",
	"customer_enrolled": "The customer is enrolled. Record their first sale below.",
	"customer_added":    "The customer was added.",
	"customer_existing": "Already a customer: this is who has that e-mail address or phone number.",
	"customer_enabled":  "The customer is enabled.",
	"customer_disabled": "The customer is disabled.",
	"customer_deleted":  "The customer was deleted. The ledger keeps their entries.",
	"points_adjusted":   "The points balance was adjusted.",
	"consent_saved":     "What the customer agrees to hear was recorded.",
	"coupon_issued":     "The coupon was issued.",
	"coupon_gifted":     "The coupon was given as a gift: no points were taken.",
	"welcome_sent":      "The welcome message is on its way, with new confirmation links.",
	"cancelled":         "The transaction was cancelled.",
	"program_saved":     "Saved. It applies from now on.",
	"program_deleted":   "Deleted.",
	"rules_saved":       "The earning rules were saved. The next sale earns by them.",
}

func notice(r *http.Request) string { return notices[r.URL.Query().Get("notice")] }

// signedIn returns the browser's session for portal p, if it has one.
func (s *Server) signedIn(r *http.Request, p portal) (oauth.Session, bool, error) {
	c, err := r.Cookie(p.Cookie)
	if err != nil {
		return oauth.Session{}, false, nil
	}
	sess, err := s.OAuth.Session(r.Context(), p.Kind, c.Value)
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		return oauth.Session{}, false, nil
	}
	return sess, err == nil, err
}

// signIn checks the posted e-mail and password for portal p and starts a
// new session (a new cookie value at every sign-in, so a planted one is
// worthless). Wrong credentials are EUnauthorized, a lockout ETooMany.
// With staff, the business console's staff sign in as well as its owner;
// the consent page of the authorization flow is for owners alone. It
// returns the kind of account signed in.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, p portal, staff bool) (string, error) {
	if ok, retry := s.allowPost(r); !ok {
		return "", &loyalty.Error{Code: loyalty.ETooMany, RetryAfter: retry,
			Message: "Too many attempts from your network. Wait a minute and try again."}
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	kind := p.Kind
	if staff {
		var err error
		if kind, err = s.Console.Staff.AccountKind(r.Context(), email); err != nil {
			return "", err
		}
	}
	try := ratelimit.Attempt{Addr: s.Transport.ClientIP(r), Account: kind + ":" + email}
	if ok, retry := s.Guesses.Check(r.Context(), try); !ok {
		return "", &loyalty.Error{Code: loyalty.ETooMany, RetryAfter: retry,
			Message: "Too many failed sign-ins from your network. Try again later."}
	}
	login, err := s.OAuth.SignIn(r.Context(), kind, email, r.PostForm.Get("password"))
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		s.Guesses.Failed(r.Context(), try)
	}
	if err != nil {
		return "", err
	}
	s.Guesses.Succeeded(r.Context(), try)
	return kind, s.startSession(w, r, p, login, email)
}

// startSession signs the browser in to portal p as login.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, p portal, login oauth.Login, email string) error {
	if c, err := r.Cookie(p.Cookie); err == nil {
		if err := s.OAuth.EndSession(r.Context(), c.Value); err != nil {
			return err
		}
	}
	email, _ = loyalty.NormalizeEmail(email)
	token, _, err := s.OAuth.StartSession(r.Context(), login, email)
	if err != nil {
		return err
	}
	s.setCookie(w, r, p.Cookie, token, int(oauth.SessionTTL.Seconds()))
	return nil
}

// signInFailed shows the sign-in form again with what went wrong, or
// reports err when it is not about the credentials.
func (s *Server) signInFailed(w http.ResponseWriter, r *http.Request, p portal, f signInForm, err error) error {
	code := loyalty.ErrorCode(err)
	if code != loyalty.EUnauthorized && code != loyalty.ETooMany && code != loyalty.EInvalid {
		return err
	}
	if e, ok := err.(*loyalty.Error); ok && e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	s.renderSignIn(w, r, p, httpapi.StatusOf(code), f, loyalty.ErrorMessage(err))
	return nil
}

// renderSignIn shows the sign-in form of portal p.
func (s *Server) renderSignIn(w http.ResponseWriter, r *http.Request, p portal, status int, f signInForm, errMsg string) {
	if f.Submit == "" {
		f.Submit = "Sign in"
	}
	v := view{Title: f.Heading, Portal: p, Narrow: true, Error: errMsg, Notice: notice(r),
		Form: map[string]string{"email": r.PostForm.Get("email")}, Data: f}
	s.render(w, r, status, "signin", v)
}

// signInHandler serves the sign-in post of a portal.
func (s *Server) signInHandler(p portal, f signInForm) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		kind, err := s.signIn(w, r, p, p.Home == business.Home)
		if err != nil {
			return s.signInFailed(w, r, p, f, err)
		}
		to := p.Home
		if p.Home == business.Home && kind == oauth.KindOwner {
			// The owner lands on the dashboard; staff on their role's page
			// (businessHome).
			to = dashboardHome
		}
		redirect(w, to)
		return nil
	}
}

// signOutHandler ends the portal's session. A next path back into the
// authorization flow is honoured ("Not you?" on the consent page); no
// other target is, so the form cannot become an open redirect.
func (s *Server) signOutHandler(p portal) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if c, err := r.Cookie(p.Cookie); err == nil {
			if err := s.OAuth.EndSession(r.Context(), c.Value); err != nil {
				return err
			}
		}
		s.setCookie(w, r, p.Cookie, "", -1)
		if next := r.PostForm.Get("next"); strings.HasPrefix(next, "/oauth/authorize?") {
			redirect(w, next)
			return nil
		}
		redirect(w, p.Home+"?notice=signedout")
		return nil
	}
}

// requireSession returns the portal's session; without one it sends the
// browser to the portal's sign-in page and reports false.
func (s *Server) requireSession(w http.ResponseWriter, r *http.Request, p portal) (oauth.Session, bool, error) {
	sess, ok, err := s.signedIn(r, p)
	if err == nil && !ok {
		redirect(w, p.Home)
	}
	return sess, ok, err
}
