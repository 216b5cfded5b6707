package web

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/wallet"
)

// walletCardPage is the body of the wallet's card: the member's balance,
// tier standing and punch cards, and the code the counter scans.
type walletCardPage struct {
	Base     string
	Business loyalty.Business // whose currency amounts are in
	Home     wallet.Home
	Name     string // the member's first name, "" when unknown
	QR       templateURL
	Until    int64 // when the code changes, in Unix seconds
}

// walletCard shows the member's card.
func (s *Server) walletCard(w http.ResponseWriter, r *http.Request, m member) error {
	b := m.Business
	home, err := s.Wallet.Home(r.Context(), b, m.ID)
	if err != nil {
		return err
	}
	v := s.walletView(r, b, &m, "Your card", "")
	v.Script = "wallet.js"
	v.Data = walletCardPage{Base: walletBase(b), Business: b.Business, Home: home, Name: home.Member.Customer.FirstName,
		QR: qrImage(home.Code.Code), Until: home.Code.Until.Unix()}
	s.render(w, r, http.StatusOK, "wallet_card", v)
	return nil
}

// walletCode answers the member's current code as JSON, for the card's
// script to show the next one when the minute turns.
func (s *Server) walletCode(w http.ResponseWriter, r *http.Request) error {
	b, err := s.walletBusiness(r)
	if err != nil {
		return err
	}
	m, ok, err := s.walletMember(r, b)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"signed out"}` + "\n"))
		return nil
	}
	c := s.Wallet.Code(b, m.ID)
	return json.NewEncoder(w).Encode(map[string]any{"code": c.Code, "qr": string(qrImage(c.Code)), "until": c.Until.Unix()})
}

// walletRewardsPage is the body of the rewards and confirm templates.
type walletRewardsPage struct {
	Base    string
	Balance int64
	Rewards []loyalty.Reward
	Reward  loyalty.Reward // the one to confirm
}

// walletRewards lists the catalog items open to the member.
func (s *Server) walletRewards(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	list, err := s.Wallet.Rewards(r.Context(), m.Business, m.ID, m.Member)
	if err != nil {
		return err
	}
	v := s.walletView(r, m.Business, &m, "Rewards", "/rewards")
	v.Data = walletRewardsPage{Base: walletBase(m.Business), Balance: m.Member.Balance.Points, Rewards: list}
	s.render(w, r, http.StatusOK, "wallet_rewards", v)
	return nil
}

// walletRewardConfirm asks before spending points on a reward: what it
// takes, and the balance before and after.
func (s *Server) walletRewardConfirm(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	rw, err := s.Wallet.Reward(r.Context(), m.Business, m.ID, m.Member, r.PathValue("reward"))
	if err != nil {
		return err
	}
	s.renderRewardConfirm(w, r, m, rw, http.StatusOK, "")
	return nil
}

func (s *Server) renderRewardConfirm(w http.ResponseWriter, r *http.Request, m member, rw loyalty.Reward, status int, msg string) {
	v := s.walletView(r, m.Business, &m, rw.Title, "/rewards")
	v.Error = msg
	v.Data = walletRewardsPage{Base: walletBase(m.Business), Balance: m.Member.Balance.Points, Reward: rw}
	s.render(w, r, status, "wallet_redeem", v)
}

// walletRedeem spends the points and shows the voucher.
func (s *Server) walletRedeem(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	rw, err := s.Wallet.Reward(r.Context(), m.Business, m.ID, m.Member, r.PathValue("reward"))
	if err != nil {
		return err
	}
	red, err := s.Wallet.Redeem(r.Context(), m.Business, m.ID, rw.ID)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		// Beyond the balance, or no longer available: nothing was spent.
		msg := e.Message
		for _, f := range e.Fields {
			msg = f[0]
			break
		}
		s.renderRewardConfirm(w, r, m, rw, httpapi.StatusOf(e.Code), msg)
		return nil
	} else if err != nil {
		return err
	}
	redirect(w, walletBase(m.Business)+"/vouchers?notice=redeemed#voucher-"+red.Voucher.ID)
	return nil
}

// walletVoucher is a voucher as the wallet shows it.
type walletVoucher struct {
	loyalty.Voucher
	State string
	QR    templateURL // while it waits for the counter
}

// walletCoupon is a coupon with its QR code.
type walletCoupon struct {
	loyalty.Coupon
	QR templateURL
}

// walletVouchersPage is the body of the vouchers template.
type walletVouchersPage struct {
	Vouchers []walletVoucher
	Coupons  []walletCoupon
	Base     string
}

// walletVouchers lists the member's vouchers and coupons, each waiting
// one with its QR code.
func (s *Server) walletVouchers(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	pk, err := s.Wallet.Pocket(r.Context(), m.Business, m.ID, m.Member)
	if err != nil {
		return err
	}
	now := s.Wallet.Now(m.Business)
	p := walletVouchersPage{Base: walletBase(m.Business)}
	for _, vo := range pk.Vouchers {
		wv := walletVoucher{Voucher: vo, State: vo.State(now)}
		if wv.State == loyalty.VoucherIssued {
			wv.QR = qrImage(vo.Code)
		}
		p.Vouchers = append(p.Vouchers, wv)
	}
	for _, c := range pk.Coupons {
		p.Coupons = append(p.Coupons, walletCoupon{Coupon: c, QR: qrImage(c.QRCode)})
	}
	v := s.walletView(r, m.Business, &m, "Vouchers", "/vouchers")
	v.Data = p
	s.render(w, r, http.StatusOK, "wallet_vouchers", v)
	return nil
}

// walletHistoryPage is the body of the history template.
type walletHistoryPage struct {
	Business loyalty.Business
	History  wallet.History
	Prev     string
	Next     string
}

// walletHistory pages the member's ledger entries.
func (s *Server) walletHistory(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	h, err := s.Wallet.History(r.Context(), m.Business, m.ID, page)
	if err != nil {
		return err
	}
	base := walletBase(m.Business) + "/history"
	p := walletHistoryPage{Business: m.Business.Business, History: h}
	if h.Page > 1 {
		p.Prev = base + "?page=" + strconv.Itoa(h.Page-1)
	}
	if h.Page < h.Pages {
		p.Next = base + "?page=" + strconv.Itoa(h.Page+1)
	}
	v := s.walletView(r, m.Business, &m, "History", "/history")
	v.Data = p
	s.render(w, r, http.StatusOK, "wallet_history", v)
	return nil
}

// walletSettingsPage is the body of the settings template.
type walletSettingsPage struct {
	Base    string
	Name    string // the business's
	Choices wallet.Choices
}

// walletSettings shows what the member hears from the business, and the
// PIN form.
func (s *Server) walletSettings(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	return s.renderWalletSettings(w, r, m, http.StatusOK, "", nil)
}

func (s *Server) renderWalletSettings(w http.ResponseWriter, r *http.Request, m member, status int, msg string, fields map[string][]string) error {
	ch, err := s.Wallet.Choices(r.Context(), m.Business, m.ID)
	if err != nil {
		return err
	}
	v := s.walletView(r, m.Business, &m, "Settings", "/settings")
	v.Error, v.Fields = msg, fields
	v.Data = walletSettingsPage{Base: walletBase(m.Business), Name: m.Business.Name(), Choices: ch}
	s.render(w, r, status, "wallet_settings", v)
	return nil
}

// walletSettingsSave records one of the member's choices: marketing or
// notifications, each form its own change.
func (s *Server) walletSettingsSave(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	f := r.PostForm
	kind := f.Get("kind")
	if kind != loyalty.ConsentMarketing && kind != loyalty.ConsentNotifications {
		return loyalty.Errorf(loyalty.EBadRequest, "The form could not be read.")
	}
	ch := loyalty.ContactChannels{Email: f.Get("email") == "on", SMS: f.Get("sms") == "on", Push: f.Get("push") == "on"}
	if err := s.Wallet.Choose(r.Context(), m.Business, m.ID, kind, ch); err != nil {
		return err
	}
	redirect(w, walletBase(m.Business)+"/settings?notice=saved#"+kind)
	return nil
}

// walletPIN sets a new PIN (after signing in with a code, the way out of
// a forgotten one).
func (s *Server) walletPIN(w http.ResponseWriter, r *http.Request) error {
	m, ok, err := s.requireMember(w, r)
	if !ok || err != nil {
		return err
	}
	pin := r.PostForm.Get("pin")
	if pin != r.PostForm.Get("pin_again") {
		return s.renderWalletSettings(w, r, m, http.StatusUnprocessableEntity, "Please correct the fields marked below.",
			map[string][]string{"pin_again": {"The two PINs differ."}})
	}
	err = s.Wallet.SetPIN(r.Context(), m.Business, m.ID, pin)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return s.renderWalletSettings(w, r, m, http.StatusUnprocessableEntity, "Please correct the fields marked below.",
			map[string][]string{"pin": e.Fields["pin_code"]})
	} else if err != nil {
		return err
	}
	redirect(w, walletBase(m.Business)+"/settings?notice=pin")
	return nil
}
