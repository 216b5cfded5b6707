package web

import (
	"net/http"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/wallet"
)

// The member wallet (/wallet/{business}) is a business's page for its
// members, for businesses without an app of their own: a member signs in
// with e-mail or phone and PIN (or a one-time code), and sees the balance,
// the code the counter scans, rewards to redeem, vouchers and coupons,
// the history and what they hear from the business.
//
// Member sessions are their own kind (oauth.KindMember), stored hashed
// like the console's, bound to one business, in a cookie of their own
// whose path is the business's wallet: a staff cookie never opens a
// wallet page, a wallet cookie is never sent to the console, and a member
// of two businesses on one phone holds a session for each.

// memberCookie is the wallet session's cookie, on the path of one
// business's wallet.
const memberCookie = "loyalty_member"

func (s *Server) walletRoutes(mux *http.ServeMux) {
	if s.Wallet == nil {
		return
	}
	mux.Handle("GET /wallet/{business}", s.page(s.walletHome))
	mux.Handle("POST /wallet/{business}/signin", s.page(s.walletSignIn))
	mux.Handle("GET /wallet/{business}/signin/code", s.page(s.walletCodeForm))
	mux.Handle("POST /wallet/{business}/signin/code", s.page(s.walletCodeSend))
	mux.Handle("POST /wallet/{business}/signin/code/check", s.page(s.walletCodeCheck))
	mux.Handle("POST /wallet/{business}/signout", s.page(s.walletSignOut))
	mux.Handle("GET /wallet/{business}/code", s.page(s.walletCode))
	mux.Handle("GET /wallet/{business}/rewards", s.page(s.walletRewards))
	mux.Handle("GET /wallet/{business}/rewards/{reward}", s.page(s.walletRewardConfirm))
	mux.Handle("POST /wallet/{business}/rewards/{reward}/redeem", s.page(s.walletRedeem))
	mux.Handle("GET /wallet/{business}/vouchers", s.page(s.walletVouchers))
	mux.Handle("GET /wallet/{business}/history", s.page(s.walletHistory))
	mux.Handle("GET /wallet/{business}/settings", s.page(s.walletSettings))
	mux.Handle("POST /wallet/{business}/settings", s.page(s.walletSettingsSave))
	mux.Handle("POST /wallet/{business}/pin", s.page(s.walletPIN))
	mux.Handle("GET /wallet/{business}/export", s.page(s.walletExport))
	mux.Handle("GET /wallet/{business}/delete", s.page(s.walletDeleteForm))
	mux.Handle("POST /wallet/{business}/delete", s.page(s.walletDelete))
	mux.Handle("GET /wallet/{business}/manifest.webmanifest", http.HandlerFunc(s.walletManifest))
	mux.Handle("GET /wallet/{business}/icons/{size}", http.HandlerFunc(s.walletIcon))
}

// walletBar is the wallet's header: the business's name and logo, and
// the member's sections once signed in.
type walletBar struct {
	Name  string
	Logo  string
	Base  string // /wallet/{business}
	Theme string // the brand colour, for the browser's bar
	Who   string // the signed-in member's e-mail or phone; "" before
	Links []navLink
}

// walletSections are the member's pages, in the bar's order.
var walletSections = []struct{ path, label string }{
	{"", "Card"}, {"/rewards", "Rewards"}, {"/vouchers", "Vouchers"}, {"/history", "History"}, {"/settings", "Settings"},
}

// member is a signed-in member on a wallet page.
type member struct {
	Business wallet.Business
	ID       string
	Session  oauth.Session
	Member   loyalty.Membership
}

// walletBase is the address of b's wallet.
func walletBase(b wallet.Business) string { return "/wallet/" + b.ID }

// walletBusiness reads the business of the page's path.
func (s *Server) walletBusiness(r *http.Request) (wallet.Business, error) {
	return s.Wallet.Open(r.Context(), r.PathValue("business"))
}

// walletMember returns the member signed in to b's wallet, if any: a
// session of the member kind, bound to b, of an active member of b.
func (s *Server) walletMember(r *http.Request, b wallet.Business) (member, bool, error) {
	c, err := r.Cookie(memberCookie)
	if err != nil {
		return member{}, false, nil
	}
	sess, err := s.OAuth.Session(r.Context(), oauth.KindMember, c.Value)
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		return member{}, false, nil
	} else if err != nil {
		return member{}, false, err
	}
	if sess.BusinessID != b.ID {
		return member{}, false, nil
	}
	m, err := s.Wallet.Member(r.Context(), b, sess.SubjectID)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return member{}, false, nil
	} else if err != nil {
		return member{}, false, err
	}
	return member{Business: b, ID: sess.SubjectID, Session: sess, Member: m}, true, nil
}

// requireMember returns the member signed in to the page's wallet; without
// one it sends the browser to the wallet's sign-in and reports false.
func (s *Server) requireMember(w http.ResponseWriter, r *http.Request) (member, bool, error) {
	b, err := s.walletBusiness(r)
	if err != nil {
		return member{}, false, err
	}
	m, ok, err := s.walletMember(r, b)
	if err == nil && !ok {
		redirect(w, walletBase(b))
	}
	return m, ok, err
}

// setMemberCookie sets or (maxAge < 0) deletes the wallet session's
// cookie of b, as every cookie of the pages is set but on the wallet's
// path.
func (s *Server) setMemberCookie(w http.ResponseWriter, r *http.Request, b wallet.Business, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: memberCookie, Value: value, Path: walletBase(b), MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.Transport.IsHTTPS(r)})
}

// startMemberSession signs the browser in to b's wallet as login.
func (s *Server) startMemberSession(w http.ResponseWriter, r *http.Request, b wallet.Business, login oauth.Login, who string) error {
	if c, err := r.Cookie(memberCookie); err == nil {
		if err := s.OAuth.EndSession(r.Context(), c.Value); err != nil {
			return err
		}
	}
	token, _, err := s.OAuth.StartSession(r.Context(), login, who)
	if err != nil {
		return err
	}
	s.setMemberCookie(w, r, b, token, int(oauth.SessionTTL.Seconds()))
	return nil
}

// walletView is the view of a wallet page of b, for m when signed in.
func (s *Server) walletView(r *http.Request, b wallet.Business, m *member, title, current string) view {
	base := walletBase(b)
	bar := &walletBar{Name: b.Name(), Logo: b.Profile.Logo, Base: base}
	brand := newBrandStyle(b.Profile.BrandColor)
	if brand != nil {
		bar.Theme = string(brand.Brand)
	}
	if m != nil {
		bar.Who = m.Session.Email
		for _, sec := range walletSections {
			bar.Links = append(bar.Links, navLink{Href: base + sec.path, Label: sec.label, Current: sec.path == current})
		}
	}
	return view{Title: title + " · " + b.Name(), Narrow: true, Public: true, Wallet: bar, Brand: brand,
		Images: imageOrigins(b.Profile.Logo), Notice: walletNotice(r)}
}

// walletNotices are the messages a redirect can ask a wallet page to show.
var walletNotices = map[string]string{
	"signedout": "You are signed out.",
	"saved":     "Saved. Your choices apply from now on.",
	"pin":       "Your new PIN is set. Use it the next time you sign in.",
	"redeemed":  "Redeemed! Show the voucher's code at the counter to get your reward.",
}

func walletNotice(r *http.Request) string { return walletNotices[r.URL.Query().Get("notice")] }

// memberContact reads what a member signs in with: an e-mail address,
// or a phone number read by the business's country.
func memberContact(b wallet.Business, s string) loyalty.SignInCodeInput {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "@") || s == "" {
		return loyalty.SignInCodeInput{Email: loyalty.Some(s)}
	}
	in := loyalty.SignInCodeInput{Phone: loyalty.Some(s)}
	if b.Country != "" {
		in.CountryCode = loyalty.Some(b.Country)
	}
	return in
}
