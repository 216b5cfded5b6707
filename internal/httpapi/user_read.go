package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// userBusinessJSON is a business as the user API shows it (spec 2.9).
type userBusinessJSON struct {
	ID          string               `json:"id"`
	Name        string               `json:"name"`
	About       *string              `json:"about"`
	LoyaltyType string               `json:"loyalty_type"`
	Category    *struct{}            `json:"category"`
	Logo        imagesJSON           `json:"logo"`
	CoverPhoto  imagesJSON           `json:"cover_photo"`
	Balance     *loyalty.BalanceJSON `json:"balance,omitempty"`
}

// sameImage is one picture offered in every size.
func sameImage(path string) imagesJSON {
	p := loyalty.Nullable(path)
	return imagesJSON{Large: p, Medium: p, Thumbnail: p}
}

func toUserBusinessJSON(m loyalty.Membership, withBalance bool) userBusinessJSON {
	b := m.Business
	out := userBusinessJSON{ID: b.ID, Name: b.Name, About: loyalty.Nullable(b.About), LoyaltyType: b.LoyaltyType,
		Logo: sameImage(b.Logo), CoverPhoto: sameImage(b.Cover)}
	if withBalance {
		out.Balance = loyalty.NewBalanceJSON(m.Balance)
	}
	return out
}

// userIncluded builds the included object of GET|PATCH /users/{id}.
func userIncluded(uc *userCtx, v loyalty.UserView, include map[string]bool) map[string]any {
	included := map[string]any{}
	if include["businesses"] {
		// With a coalition key each business carries its own balance.
		perBusiness := include["balance"] && uc.program.Tenant.CoalitionID != ""
		list := make([]userBusinessJSON, len(v.Memberships))
		for i, m := range v.Memberships {
			list[i] = toUserBusinessJSON(m, perBusiness)
		}
		included["businesses"] = list
	}
	if include["balance"] {
		included["balance"] = loyalty.NewBalanceJSON(loyalty.Total(v.Memberships))
	}
	if include["coalition"] {
		var c any
		if id := uc.program.Tenant.CoalitionID; id != "" {
			c = map[string]string{"id": id, "name": uc.program.CoalitionName}
		}
		included["coalition"] = c
	}
	if include["user_emails"] || include["user_phone_numbers"] {
		emails, phones := contactsJSON(v.Person)
		if include["user_emails"] {
			included["user_emails"] = emails
		}
		if include["user_phone_numbers"] {
			included["user_phone_numbers"] = phones
		}
	}
	offeringIncluded(v.Offering, include, included)
	if include["coupons"] {
		coupons := make([]*loyalty.CouponJSON, len(v.Coupons))
		for i, c := range v.Coupons {
			coupons[i] = loyalty.NewCouponJSON(c)
		}
		included["coupons"] = coupons
	}
	return included
}

// offeringIncluded adds what the user's businesses offer, as named by
// include: branches, catalog_items, offers, giftcards, products (the first
// loyalty.UserProductsPerBusiness of each business), punch_cards and
// social_media (not kept: always empty).
func offeringIncluded(o loyalty.Offering, include map[string]bool, included map[string]any) {
	if include["social_media"] {
		included["social_media"] = []any{} // not kept
	}
	if include["products"] {
		list := make([]userProductJSON, len(o.Products))
		for i, p := range o.Products {
			list[i] = userProductJSON{productJSON: toProductJSON(p), BusinessID: p.BusinessID}
		}
		included["products"] = list
	}
	if include["branches"] {
		included["branches"] = branchesJSON(o.Branches)
	}
	if include["catalog_items"] {
		included["catalog_items"] = rewardsJSON(o.CatalogItems)
	}
	if include["offers"] {
		list := make([]customerOfferJSON, len(o.Offers))
		for i, co := range o.Offers {
			list[i] = toCustomerOfferJSON(co, nil)
		}
		included["offers"] = list
	}
	if include["giftcards"] {
		list := make([]giftcardJSON, len(o.Giftcards))
		for i, g := range o.Giftcards {
			list[i] = toGiftcardJSON(g, nil)
		}
		included["giftcards"] = list
	}
	if include["punch_cards"] {
		list := make([]userCardJSON, len(o.PunchCards))
		for i, c := range toCustomerCardsJSON(o.PunchCards) {
			list[i] = userCardJSON{customerCardJSON: c, BusinessID: o.PunchCards[i].Card.BusinessID}
		}
		included["punch_cards"] = list
	}
}

// userProductJSON is a product as the user API shows it: with the
// business it is of.
type userProductJSON struct {
	productJSON
	BusinessID string `json:"business_id"`
}

// userCardJSON is a punch card as the user API shows it: with the
// business it is of.
type userCardJSON struct {
	customerCardJSON
	BusinessID string `json:"business_id"`
}

// userOffers lists the offers the user sees, with their branch when rel
// asks for it.
func (u *users) userOffers(r *http.Request, uc *userCtx, ms []loyalty.Membership, rel map[string]bool) ([]customerOfferJSON, error) {
	list, err := uc.svc.Users.Offers(r.Context(), uc.userID, ms)
	if err != nil {
		return nil, err
	}
	picker := u.pickers(r, rel)
	out := make([]customerOfferJSON, len(list))
	for i, co := range list {
		j, err := u.offerJSON(co, picker)
		if err != nil {
			return nil, err
		}
		out[i] = j
	}
	return out, nil
}

// pickers returns a function giving the branch picker of a business,
// reading each business's branches once.
func (u *users) pickers(r *http.Request, rel map[string]bool) func(businessID string) (*branchPicker, error) {
	seen := map[string]*branchPicker{}
	return func(businessID string) (*branchPicker, error) {
		if p, ok := seen[businessID]; ok {
			return p, nil
		}
		p, err := u.s.branchPicker(r.Context(), businessID, rel)
		seen[businessID] = p
		return p, err
	}
}

// offerJSON is one offer as the user sees it.
func (u *users) offerJSON(co loyalty.CustomerOffer, picker func(string) (*branchPicker, error)) (customerOfferJSON, error) {
	p, err := picker(co.BusinessID)
	if err != nil {
		return customerOfferJSON{}, err
	}
	return toCustomerOfferJSON(co, p), nil
}

// userGiftcards lists the gift cards on sale to the user.
func (u *users) userGiftcards(r *http.Request, uc *userCtx, ms []loyalty.Membership, rel map[string]bool) ([]giftcardJSON, error) {
	list, err := uc.svc.Users.Giftcards(r.Context(), ms)
	if err != nil {
		return nil, err
	}
	picker := u.pickers(r, rel)
	out := make([]giftcardJSON, len(list))
	for i, g := range list {
		p, err := picker(g.BusinessID)
		if err != nil {
			return nil, err
		}
		out[i] = toGiftcardJSON(g, p)
	}
	return out, nil
}

// memberships reads the user's memberships among the key's businesses.
func (u *users) memberships(r *http.Request, uc *userCtx) ([]loyalty.Membership, error) {
	return uc.svc.Users.Memberships(r.Context(), uc.program, uc.userID)
}

func (u *users) rewards(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	custom, items, err := uc.svc.Users.Rewards(r.Context(), uc.userID, ms)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"custom_rewards": rewardsJSON(custom), "catalog_items": rewardsJSON(items)}})
	return nil
}

func (u *users) offers(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	list, err := u.userOffers(r, uc, ms, rel)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": list})
	return nil
}

func (u *users) offer(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
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
	out, err := u.offerJSON(co, u.pickers(r, rel))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

func (u *users) giftcards(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	list, err := u.userGiftcards(r, uc, ms, rel)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": list})
	return nil
}

func (u *users) giftcard(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	rel, err := relationships(r.URL.Query())
	if err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	g, err := uc.svc.Users.Giftcard(r.Context(), ms, r.PathValue("giftcard_id"))
	if err != nil {
		return err
	}
	p, err := u.s.branchPicker(r.Context(), g.BusinessID, rel)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": toGiftcardJSON(g, p)})
	return nil
}

func (u *users) businesses(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	ms, err := u.memberships(r, uc)
	if err != nil {
		return err
	}
	list := uc.svc.Users.Businesses(uc.program, ms)
	out := make([]userBusinessJSON, len(list))
	for i, m := range list {
		out[i] = toUserBusinessJSON(m, false)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

func (u *users) business(w http.ResponseWriter, r *http.Request, uc *userCtx) error {
	include, _, err := queryNames(r, loyalty.UserBusinessIncludes, nil)
	if err != nil {
		return err
	}
	v, err := uc.svc.Users.MembershipView(r.Context(), uc.program, uc.userID, r.PathValue("business_id"), include)
	if err != nil {
		return err
	}
	resp := map[string]any{"data": toUserBusinessJSON(v.Membership, false)}
	if len(include) > 0 {
		included := map[string]any{}
		offeringIncluded(v.Offering, include, included)
		resp["included"] = included
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}
