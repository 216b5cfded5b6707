package web

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/ratelimit"
)

// A member takes their data (the user API's export, as a file) or erases
// their account from the wallet's settings. Erasing asks for the PIN
// again, checked as at sign-in: a wrong PIN counts toward the account's
// lockout and the guess budgets (ratelimit.Guesses) of the address on the
// account, and a spent budget or a locked account refuses even the right
// PIN.

// walletExport answers the member's data as a JSON file to keep.
func (s *Server) walletExport(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	doc, err := s.Wallet.Export(r.Context(), m.Business, m.ID)
	if err != nil {
		return err
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="my-data.json"`)
	w.Write(append(body, '\n'))
	return nil
}

// walletDeletePage is the body of the account deletion's confirmation.
type walletDeletePage struct {
	Base     string
	Name     string           // the business's
	Business loyalty.Business // whose currency the gift card is in
	Balance  loyalty.Balance
}

// walletDeleteForm asks the member to confirm erasing their account.
func (s *Server) walletDeleteForm(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	s.renderWalletDelete(w, r, m, http.StatusOK, "", nil)
	return nil
}

func (s *Server) renderWalletDelete(w http.ResponseWriter, r *http.Request, m member, status int, msg string, fields map[string][]string) {
	v := s.walletView(r, m.Business, &m, "Delete your account", "/settings")
	v.Error, v.Fields = msg, fields
	v.Data = walletDeletePage{Base: walletBase(m.Business), Name: m.Business.Name(), Business: m.Business.Business,
		Balance: m.Member.Balance}
	s.render(w, r, status, "wallet_delete", v)
}

// walletDelete erases the member's account once the PIN is right, ends
// the session and says the account is erased.
func (s *Server) walletDelete(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	b := m.Business
	pin := r.PostForm.Get("pin")
	if pin == "" {
		s.renderWalletDelete(w, r, m, http.StatusUnprocessableEntity, "", map[string][]string{"pin": {"Enter your PIN to delete your account."}})
		return nil
	}
	// The account as the member named it signing in, so that these
	// guesses and the sign-in's share one budget.
	try := ratelimit.Attempt{Addr: s.Transport.ClientIP(r), Account: m.Session.Email}
	if err := s.guessBudget(r, try); err != nil {
		return s.walletDeleteRefused(w, r, m, err)
	}
	err = s.OAuth.CheckMemberPIN(r.Context(), b.ID, m.ID, pin)
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		s.Guesses.Failed(r.Context(), try)
	} else if err == nil {
		s.Guesses.Succeeded(r.Context(), try)
	}
	if err != nil {
		return s.walletDeleteRefused(w, r, m, err)
	}
	photo, err := s.Wallet.Erase(r.Context(), b, m.ID)
	if err != nil {
		return s.walletDeleteRefused(w, r, m, err)
	}
	if s.Images != nil {
		// The picture's file goes with the record that named it.
		s.Images.DropImage(r.Context(), photo)
	}
	if c, err := r.Cookie(memberCookie); err == nil {
		if err := s.OAuth.EndSession(r.Context(), c.Value); err != nil {
			return err
		}
	}
	s.setMemberCookie(w, r, b, "", -1)
	redirect(w, walletBase(b)+"?notice=erased")
	return nil
}

// walletDeleteRefused shows the confirmation again with why the account
// was not erased: a wrong PIN, a spent budget, or the gift-card balance
// beside the form; other errors are reported as they are.
func (s *Server) walletDeleteRefused(w http.ResponseWriter, r *http.Request, m member, err error) error {
	e, ok := err.(*loyalty.Error)
	if !ok {
		return err
	}
	status := httpapi.StatusOf(e.Code)
	switch e.Code {
	case loyalty.EUnauthorized:
		s.renderWalletDelete(w, r, m, status, "", map[string][]string{"pin": {e.Message}})
	case loyalty.ETooMany:
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		}
		s.renderWalletDelete(w, r, m, status, e.Message, nil)
	case loyalty.EInvalid:
		s.renderWalletDelete(w, r, m, status, "Your account was not deleted.", e.Fields)
	default:
		return err
	}
	return nil
}
