package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/ratelimit"
	"github.com/loyalty/loyalty/internal/wallet"
)

// Signing in to a wallet: e-mail or phone and PIN, checked as the user
// API's password grant checks it (the same lockout per person), or a
// one-time code sent by e-mail or SMS. Every failed check spends the
// client address's guess budget, shared with the API's password grant
// and the portals, and a spent budget refuses even the right PIN.

// walletSignInPage is the body of the wallet's sign-in templates.
type walletSignInPage struct {
	Base     string
	Name     string
	Username string
	Sent     bool // the code was asked for: enter it
}

// walletHome shows the member's card, or the sign-in form to a browser
// not signed in to this business's wallet.
func (s *Server) walletHome(w http.ResponseWriter, r *http.Request) error {
	b, err := s.walletBusiness(r)
	if err != nil {
		return err
	}
	m, ok, err := s.walletMember(r, b)
	if err != nil {
		return err
	}
	if !ok && r.URL.Query().Get("notice") == "erased" {
		// Just after deleting the account: say so, rather than ask to sign in.
		v := s.walletView(r, b, nil, "Account deleted", "")
		v.Data = walletSignInPage{Base: walletBase(b), Name: b.Name()}
		s.render(w, r, http.StatusOK, "wallet_erased", v)
		return nil
	}
	if !ok {
		s.renderWalletSignIn(w, r, b, http.StatusOK, "", "")
		return nil
	}
	return s.walletCard(w, r, m)
}

func (s *Server) renderWalletSignIn(w http.ResponseWriter, r *http.Request, b wallet.Business, status int, errMsg, username string) {
	v := s.walletView(r, b, nil, "Sign in", "")
	v.Error = errMsg
	v.Data = walletSignInPage{Base: walletBase(b), Name: b.Name(), Username: username}
	s.render(w, r, status, "wallet_signin", v)
}

// guessBudget refuses a credential check whose guess budget is spent
// (ratelimit.Guesses: the address's, and the address's on the account).
func (s *Server) guessBudget(r *http.Request, try ratelimit.Attempt) error {
	if ok, retry := s.allowPost(r); !ok {
		return &loyalty.Error{Code: loyalty.ETooMany, RetryAfter: retry,
			Message: "Too many attempts from your network. Wait a minute and try again."}
	}
	if ok, retry := s.Guesses.Check(r.Context(), try); !ok {
		return &loyalty.Error{Code: loyalty.ETooMany, RetryAfter: retry,
			Message: "Too many failed sign-ins from your network. Try again later."}
	}
	return nil
}

// walletSignIn checks the posted e-mail or phone and PIN.
func (s *Server) walletSignIn(w http.ResponseWriter, r *http.Request) error {
	b, err := s.walletBusiness(r)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(r.PostForm.Get("username"))
	try := ratelimit.Attempt{Addr: s.Transport.ClientIP(r), Account: name}
	err = s.guessBudget(r, try)
	var login oauth.Login
	if err == nil {
		login, err = s.OAuth.SignInMember(r.Context(), b.ID, name, b.Country, r.PostForm.Get("pin"))
		if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
			s.Guesses.Failed(r.Context(), try)
		} else if err == nil {
			s.Guesses.Succeeded(r.Context(), try)
		}
	}
	if err == nil {
		err = s.startMemberSession(w, r, b, login, memberName(name))
	}
	if err != nil {
		return s.walletRefused(w, r, b, err, name, func(msg string) {
			s.renderWalletSignIn(w, r, b, httpapi.StatusOf(loyalty.ErrorCode(err)), msg, name)
		})
	}
	redirect(w, walletBase(b))
	return nil
}

// walletRefused shows a refused sign-in again through show, or reports
// err when it is not about the credentials.
func (s *Server) walletRefused(w http.ResponseWriter, r *http.Request, b wallet.Business, err error, name string, show func(msg string)) error {
	code := loyalty.ErrorCode(err)
	if code != loyalty.EUnauthorized && code != loyalty.ETooMany && code != loyalty.EInvalid {
		return err
	}
	if e, ok := err.(*loyalty.Error); ok && e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	msg := loyalty.ErrorMessage(err)
	if e, ok := err.(*loyalty.Error); ok && code == loyalty.EInvalid && len(e.Fields) > 0 {
		var parts []string
		for _, f := range []string{"code", "email", "phone", "country_code"} {
			parts = append(parts, e.Fields[f]...)
		}
		if len(parts) > 0 {
			msg = strings.Join(parts, " ")
		}
	}
	show(msg)
	return nil
}

// memberName is how the wallet names who signed in: the e-mail address
// or phone number as typed, trimmed.
func memberName(name string) string {
	if e, ok := loyalty.NormalizeEmail(name); ok {
		return e
	}
	return strings.Join(strings.Fields(name), " ")
}

// walletCodeForm asks for the e-mail or phone to send a sign-in code to.
func (s *Server) walletCodeForm(w http.ResponseWriter, r *http.Request) error {
	b, err := s.walletBusiness(r)
	if err != nil {
		return err
	}
	s.renderWalletCode(w, r, b, http.StatusOK, "", r.URL.Query().Get("username"), false)
	return nil
}

func (s *Server) renderWalletCode(w http.ResponseWriter, r *http.Request, b wallet.Business, status int, errMsg, username string, sent bool) {
	v := s.walletView(r, b, nil, "Sign in with a code", "")
	v.Error = errMsg
	v.Data = walletSignInPage{Base: walletBase(b), Name: b.Name(), Username: username, Sent: sent}
	s.render(w, r, status, "wallet_code", v)
}

// walletCodeSend sends a sign-in code, when the e-mail or phone is a
// member's; the answer is the same either way.
func (s *Server) walletCodeSend(w http.ResponseWriter, r *http.Request) error {
	b, err := s.walletBusiness(r)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(r.PostForm.Get("username"))
	if ok, retry := s.allowPost(r); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		s.renderWalletCode(w, r, b, http.StatusTooManyRequests, "Too many attempts from your network. Wait a minute and try again.", name, false)
		return nil
	}
	err = s.Wallet.Services.Users.RequestSignInCode(r.Context(), b.Program(), memberContact(b, name))
	if err != nil {
		return s.walletRefused(w, r, b, err, name, func(msg string) {
			s.renderWalletCode(w, r, b, http.StatusUnprocessableEntity, msg, name, false)
		})
	}
	s.renderWalletCode(w, r, b, http.StatusOK, "", name, true)
	return nil
}

// walletCodeCheck signs in with the code sent.
func (s *Server) walletCodeCheck(w http.ResponseWriter, r *http.Request) error {
	b, err := s.walletBusiness(r)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(r.PostForm.Get("username"))
	try := ratelimit.Attempt{Addr: s.Transport.ClientIP(r), Account: name}
	err = s.guessBudget(r, try)
	var id string
	if err == nil {
		in := memberContact(b, name)
		in.Code = loyalty.Some(r.PostForm.Get("code"))
		id, err = s.Wallet.Services.Users.SignInWithCode(r.Context(), b.Program(), in)
		if loyalty.ErrorCode(err) == loyalty.EInvalid {
			s.Guesses.Failed(r.Context(), try)
		} else if err == nil {
			s.Guesses.Succeeded(r.Context(), try)
		}
	}
	if err == nil {
		err = s.startMemberSession(w, r, b, oauth.MemberLogin(b.ID, id), memberName(name))
	}
	if err != nil {
		return s.walletRefused(w, r, b, err, name, func(msg string) {
			s.renderWalletCode(w, r, b, httpapi.StatusOf(loyalty.ErrorCode(err)), msg, name, true)
		})
	}
	redirect(w, walletBase(b))
	return nil
}

// walletSignOut ends the wallet session.
func (s *Server) walletSignOut(w http.ResponseWriter, r *http.Request) error {
	b, err := s.walletBusiness(r)
	if err != nil {
		return err
	}
	if c, err := r.Cookie(memberCookie); err == nil {
		if err := s.OAuth.EndSession(r.Context(), c.Value); err != nil {
			return err
		}
	}
	s.setMemberCookie(w, r, b, "", -1)
	redirect(w, walletBase(b)+"?notice=signedout")
	return nil
}
