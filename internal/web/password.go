package web

import (
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// Password change (signed in) and reset by e-mail, for the accounts of
// every portal. The rules are the domain's (console.PasswordService).

func (s *Server) passwordRoutes(mux *http.ServeMux) {
	for _, p := range []portal{developers, support, business} {
		mux.Handle("GET "+p.Home+"/password/forgot", s.page(s.forgotForm(p)))
		mux.Handle("POST "+p.Home+"/password/forgot", s.page(s.forgot(p)))
		mux.Handle("GET "+p.Home+"/password/reset", s.page(s.resetForm(p)))
		mux.Handle("POST "+p.Home+"/password/reset", s.page(s.reset(p)))
	}
	for _, p := range []portal{developers, support} {
		mux.Handle("GET "+p.Home+"/password", s.page(s.accountPassword(p, false)))
		mux.Handle("POST "+p.Home+"/password", s.page(s.accountPassword(p, true)))
	}
	mux.Handle("GET /business/password", s.console("", s.consolePassword))
	mux.Handle("POST /business/password", s.console("", s.consolePassword))
}

// passwordPage is the body of the password templates.
type passwordPage struct {
	Portal string // the portal's home
	Email  string // the account's, for password managers
	Token  string // the reset token
}

// accountPassword serves the password page of a developer or support
// account.
func (s *Server) accountPassword(p portal, post bool) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sess, ok, err := s.requireSession(w, r, p)
		if !ok {
			return err
		}
		acct := loyalty.PortalAccount{Kind: sess.Kind, ID: sess.SubjectID, Email: sess.Email}
		v := view{Title: "Change your password", Portal: p, User: sess.Email, Notice: notice(r)}
		if !post {
			return s.renderPassword(w, r, http.StatusOK, v, p, acct.Email)
		}
		return s.changePassword(w, r, v, p, acct)
	}
}

// consolePassword serves the password page of the console, for every role.
func (s *Server) consolePassword(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	v := s.consoleView(r, a, "Change your password")
	if r.Method != http.MethodPost {
		return s.renderPassword(w, r, http.StatusOK, v, business, a.Email)
	}
	return s.changePassword(w, r, v, business, loyalty.PortalAccount{Kind: a.Kind, ID: a.ID, BusinessID: a.BusinessID,
		Email: a.Email, Role: a.Role})
}

func (s *Server) renderPassword(w http.ResponseWriter, r *http.Request, status int, v view, p portal, email string) error {
	v.Data = passwordPage{Portal: p.Home, Email: email}
	s.render(w, r, status, "password", v)
	return nil
}

// changePassword checks the current password and sets the new one; the
// account's other browsers are signed out, this one stays.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, v view, p portal, acct loyalty.PortalAccount) error {
	f := r.PostForm
	var err error
	if f.Get("password") != f.Get("password_again") {
		err = loyalty.Invalid("password_again", "The two new passwords differ.")
	} else {
		c, _ := r.Cookie(p.Cookie)
		err = s.Console.Passwords.Change(r.Context(), acct, f.Get("current_password"), f.Get("password"), s.OAuth.Hash.Token(c.Value))
	}
	if e, ok := err.(*loyalty.Error); ok && (e.Code == loyalty.EInvalid || e.Code == loyalty.ETooMany) {
		v.Fields, v.Error = e.Fields, "Please correct the fields marked below."
		status := httpapi.StatusOf(e.Code)
		if e.Code == loyalty.ETooMany {
			v.Error = e.Message
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		}
		return s.renderPassword(w, r, status, v, p, acct.Email)
	} else if err != nil {
		return err
	}
	redirect(w, p.Home+"/password?notice=password")
	return nil
}

func (s *Server) forgotForm(p portal) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		s.render(w, r, http.StatusOK, "forgot", view{Title: "Reset your password", Portal: p, Narrow: true, Notice: notice(r),
			Data: passwordPage{Portal: p.Home}})
		return nil
	}
}

// forgot e-mails a reset link when the address has an account; the answer
// is the same either way. Posts are budgeted per client IP like sign-in.
func (s *Server) forgot(p portal) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		fail := func(status int, msg string, fields map[string][]string) error {
			s.render(w, r, status, "forgot", view{Title: "Reset your password", Portal: p, Narrow: true, Error: msg, Fields: fields,
				Form: map[string]string{"email": r.PostForm.Get("email")}, Data: passwordPage{Portal: p.Home}})
			return nil
		}
		if ok, retry := s.allowPost(r); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(retry))
			return fail(http.StatusTooManyRequests, "Too many attempts from your network. Wait a minute and try again.", nil)
		}
		resetURL := ""
		if base := s.siteURL(r, false); base != "" {
			resetURL = base + p.Home + "/password/reset"
		}
		err := s.Console.Passwords.RequestReset(r.Context(), p.Accounts, r.PostForm.Get("email"), resetURL)
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			return fail(httpapi.StatusOf(e.Code), "Please correct the fields marked below.", e.Fields)
		} else if err != nil {
			return err
		}
		redirect(w, p.Home+"/password/forgot?notice=resetsent")
		return nil
	}
}

func (s *Server) resetForm(p portal) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		return s.renderReset(w, r, p, http.StatusOK, r.URL.Query().Get("token"), nil, "")
	}
}

// renderReset shows the form to choose a new password; with no token in
// the link, it asks for the one of the e-mail.
func (s *Server) renderReset(w http.ResponseWriter, r *http.Request, p portal, status int, token string, fields map[string][]string, msg string) error {
	v := view{Title: "Choose a new password", Portal: p, Narrow: true, Fields: fields, Error: msg}
	if token != "" {
		acct, _, err := s.Console.Passwords.ResetAccount(r.Context(), p.Accounts, token)
		if code := loyalty.ErrorCode(err); code == loyalty.ENotFound {
			s.render(w, r, httpapi.StatusOf(code), "error", view{Title: "Reset link not valid", Portal: p, Narrow: true,
				Data: errorPage{Heading: "This reset link cannot be used", Message: loyalty.ErrorMessage(err)}})
			return nil
		} else if err != nil {
			return err
		}
		v.Data = passwordPage{Portal: p.Home, Email: acct.Email, Token: token}
	} else {
		v.Data = passwordPage{Portal: p.Home}
	}
	s.render(w, r, status, "reset", v)
	return nil
}

// reset sets the new password; the token works once, and the account's
// browsers are all signed out.
func (s *Server) reset(p portal) handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		f := r.PostForm
		token := f.Get("token")
		if ok, retry := s.allowPost(r); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(retry))
			return s.renderReset(w, r, p, http.StatusTooManyRequests, token, nil, "Too many attempts from your network. Wait a minute and try again.")
		}
		if f.Get("password") != f.Get("password_again") {
			return s.renderReset(w, r, p, http.StatusUnprocessableEntity, token,
				map[string][]string{"password_again": {"The two passwords differ."}}, "Please correct the fields marked below.")
		}
		_, err := s.Console.Passwords.Reset(r.Context(), p.Accounts, token, f.Get("password"))
		if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
			return s.renderReset(w, r, p, httpapi.StatusOf(e.Code), token, e.Fields, "Please correct the fields marked below.")
		} else if code := loyalty.ErrorCode(err); code == loyalty.ENotFound {
			return s.renderReset(w, r, p, httpapi.StatusOf(code), token, nil, "")
		} else if err != nil {
			return err
		}
		redirect(w, p.Home+"?notice=reset")
		return nil
	}
}
