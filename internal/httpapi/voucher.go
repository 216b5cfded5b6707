package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// redemptionJSON is a member's redemption: the voucher, and the balance
// it left in its business.
type redemptionJSON struct {
	loyalty.VoucherJSON
	Balance loyalty.BalanceJSON `json:"balance"`
}

// handOverJSON is a voucher as the counter's scan found it: HandedOverNow
// tells the scan that handed it over from a later one.
type handOverJSON struct {
	loyalty.VoucherJSON
	HandedOverNow bool `json:"handed_over_now"`
}

// redeem is POST /users/{user_id}/redemptions: the member spends points on
// a catalog item of one of the key's businesses and gets its voucher.
func (u *users) redeem(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	var in loyalty.MemberRedemptionInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	m, err := u.membershipOf(r, uc, in.BusinessID)
	if err != nil {
		return err
	}
	red, err := uc.svc.Vouchers.Redeem(r.Context(), m.Business, uc.userID, in)
	if err != nil {
		return err
	}
	bal := red.Entry.Balance
	writeJSON(w, http.StatusOK, map[string]any{"data": redemptionJSON{
		VoucherJSON: loyalty.NewVoucherJSON(red.Voucher, red.Voucher.CreatedAt),
		Balance:     loyalty.BalanceJSON{Points: bal.Points, Giftcard: bal.Giftcard, Pending: bal.Pending}}})
	return nil
}

// membershipOf returns the member's membership of the business a body
// names: business_id is required when the key opens several businesses,
// and may be left out when it opens one.
func (u *users) membershipOf(r *http.Request, uc *userCtx, id loyalty.Opt[string]) (loyalty.Membership, error) {
	ms, err := u.memberships(r, uc)
	if err != nil {
		return loyalty.Membership{}, err
	}
	bid, ok := id.Value()
	switch {
	case id.Set && (!ok || bid == ""):
		return loyalty.Membership{}, loyalty.Invalid("business_id", "The business_id must be the id of one of your businesses.")
	case !id.Set && len(uc.program.BusinessIDs()) == 1:
		bid = uc.program.BusinessIDs()[0]
	case !id.Set:
		return loyalty.Membership{}, loyalty.Invalid("business_id", "The business_id is required: this app serves several businesses.")
	}
	if !loyalty.ValidID(bid) {
		return loyalty.Membership{}, loyalty.Invalid("business_id", "The business_id must be the id of one of your businesses.")
	}
	m, err := uc.svc.Users.Business(ms, bid)
	if loyalty.ErrorCode(err) == loyalty.ENotFound {
		return m, loyalty.Invalid("business_id", "You are not a member of this business.")
	}
	return m, err
}

// redemptions is GET /users/{user_id}/redemptions: the member's vouchers
// in the key's businesses, newest first in each.
func (u *users) redemptions(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	out := []loyalty.VoucherJSON{}
	for _, m := range ms {
		list, err := uc.svc.Vouchers.Vouchers(r.Context(), m.Business, uc.userID)
		if err != nil {
			return err
		}
		now := uc.svc.Vouchers.Store.Now()
		for _, v := range list {
			out = append(out, loyalty.NewVoucherJSON(v, now))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// claimOffer is POST /users/{user_id}/offers/{offer_id}/claim: the member
// takes a coupon of an offer they see, paying its points if it costs any,
// as the ledger's get_coupon does.
func (u *users) claimOffer(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if err := decodeStrict(r, &struct{}{}); err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	co, err := uc.svc.Users.Offer(r.Context(), uc.userID, ms, r.PathValue("offer_id"))
	if err != nil {
		return err
	}
	m, err := uc.svc.Users.Business(ms, co.BusinessID)
	if err != nil {
		return err
	}
	in := loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentGetCoupon),
		Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(uc.userID)}),
		Offer:    loyalty.Some(loyalty.IntRef{ID: loyalty.Some(co.ID)})}
	t, _, err := uc.svc.Transactions.Create(r.Context(), m.Business, in, nil)
	if err != nil {
		return loyalty.RenameFields(err, map[string]string{"offer.id": "offer_id"})
	}
	out := loyalty.NewCouponJSON(*t.Coupon)
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"coupon": out, "transaction_id": t.ID,
		"balance": loyalty.BalanceJSON{Points: t.Balance.Points, Giftcard: t.Balance.Giftcard, Pending: t.Balance.Pending}}})
	return nil
}

// voucher is GET /vouchers/{code}: a voucher of the business, as the
// counter would find it, changing nothing.
func (s *Server) voucher(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	b := loyalty.Business{ID: rc.businessID}
	v, err := rc.svc.Vouchers.Voucher(r.Context(), b, r.PathValue("code"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": loyalty.NewVoucherJSON(v, rc.svc.Vouchers.Store.Now())})
	return nil
}

// handOverInput is the body of POST /vouchers/{code}/handover.
type handOverInput struct {
	Branch loyalty.Opt[loyalty.StringRef] `json:"branch"`
}

// handOver is POST /vouchers/{code}/handover: the counter scanned a
// voucher. The first scan hands the reward over (handed_over_now); a later
// one answers when and by whom it was.
func (s *Server) handOver(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in handOverInput
	if err := decodeStrict(r, &in); err != nil {
		return err
	}
	branch := ""
	if ref, ok := in.Branch.Value(); ok {
		if branch, ok = ref.ID.Value(); !ok || branch == "" {
			return loyalty.Invalid("branch.id", "The branch id is required when branch is sent.")
		}
	}
	who, err := s.appName(r, rc)
	if err != nil {
		return err
	}
	v, first, err := rc.svc.Vouchers.HandOver(r.Context(), loyalty.Business{ID: rc.businessID}, r.PathValue("code"), who, branch)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": handOverJSON{
		VoucherJSON: loyalty.NewVoucherJSON(v, rc.svc.Vouchers.Store.Now()), HandedOverNow: first}})
	return nil
}

// appName is the name of the app a request's token was issued to, read by
// the token's app id (one key read; the business's connections would
// count every token of every app).
func (s *Server) appName(r *http.Request, rc *reqCtx) (string, error) {
	app, err := s.OAuth.Store.AppByID(r.Context(), rc.token.AppID)
	if loyalty.ErrorCode(err) == loyalty.ENotFound || (err == nil && app.Name == "") {
		return "an app", nil
	}
	return app.Name, err
}
