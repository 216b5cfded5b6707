package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

type imagesJSON struct {
	Large     *string `json:"large"`
	Medium    *string `json:"medium"`
	Thumbnail *string `json:"thumbnail"`
}

type branchJSON struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	WebSite    *string           `json:"web_site"`
	Address    branchAddressJSON `json:"address"`
	Logo       imagesJSON        `json:"logo"`
	CoverPhoto imagesJSON        `json:"cover_photo"`
}

// branchAddressJSON is a branch's address in the reference platform's
// shape; a member not known is null.
type branchAddressJSON struct {
	Formatted *string  `json:"formatted"`
	City      *string  `json:"city"`
	Region    *string  `json:"region"`
	Country   *string  `json:"country"`
	Lat       *float64 `json:"lat"`
	Long      *float64 `json:"long"`
}

func toBranchJSON(b loyalty.Branch) branchJSON {
	a := b.Address
	return branchJSON{ID: b.ID, Name: b.Name, WebSite: loyalty.Nullable(b.WebSite), Address: branchAddressJSON{
		Formatted: loyalty.Nullable(a.Formatted), City: loyalty.Nullable(a.City), Region: loyalty.Nullable(a.Region), Country: loyalty.Nullable(a.Country),
		Lat: a.Lat, Long: a.Long}}
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	include, _, err := queryNames(r, loyalty.AccountIncludes, nil)
	if err != nil {
		return err
	}
	v, err := rc.svc.Accounts.View(r.Context(), rc.businessID, rc.token.SubjectID, include)
	if err != nil {
		return err
	}
	o, b := v.Account.Owner, v.Account.Business
	resp := map[string]any{"data": map[string]any{
		"id": b.ID,
		"profile": map[string]any{"id": o.ID, "username": loyalty.Nullable(o.Username), "email": o.Email,
			"first_name": loyalty.Nullable(o.FirstName), "last_name": loyalty.Nullable(o.LastName)},
		"business": accountBusinessJSON(b),
	}}
	if len(include) > 0 {
		resp["included"] = accountIncluded(v, include)
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// accountBusinessJSON is the business of GET /me: cover_photo in the
// reference's images shape (the one image the business keeps, at every
// size; null without one), and its settings.
func accountBusinessJSON(b loyalty.Business) map[string]any {
	var cover any
	if b.Cover != "" {
		cover = imagesJSON{Large: &b.Cover, Medium: &b.Cover, Thumbnail: &b.Cover}
	}
	return map[string]any{"id": b.ID, "name": b.Name, "loyalty_type": b.LoyaltyType,
		"about": loyalty.Nullable(b.About), "logo": loyalty.Nullable(b.Logo), "cover": loyalty.Nullable(b.Cover),
		"cover_photo": cover, "settings": accountSettingsJSON(b)}
}

// accountSettingsJSON is the settings of the business the service keeps,
// in GET /me's business and its include=settings: its loyalty type, the
// country that reads local phone numbers and its currency (the
// reference's currency object).
func accountSettingsJSON(b loyalty.Business) map[string]any {
	return map[string]any{"loyalty_type": b.LoyaltyType, "country_code": loyalty.Nullable(b.Country), "currency": currencyJSON(b)}
}

// accountIncluded is the included object of GET /me: every list include
// names, empty for those the service does not keep (products, social
// media), under the name asked for (catalog and catalog_items alike).
// business is the account's business, with its settings.
func accountIncluded(v loyalty.AccountView, include map[string]bool) map[string]any {
	included := map[string]any{}
	for name := range include {
		included[name] = []any{}
	}
	if include["settings"] {
		included["settings"] = accountSettingsJSON(v.Account.Business)
	}
	if include["business"] {
		included["business"] = accountBusinessJSON(v.Account.Business)
	}
	if include["offers"] {
		list := make([]offerDetailJSON, len(v.Offers))
		for i, o := range v.Offers {
			list[i] = toOfferDetailJSON(o, nil)
		}
		included["offers"] = list
	}
	if include["giftcards"] {
		list := make([]giftcardJSON, len(v.Giftcards))
		for i, g := range v.Giftcards {
			list[i] = toGiftcardJSON(g, nil)
		}
		included["giftcards"] = list
	}
	for _, name := range []string{"catalog_items", "catalog"} {
		if include[name] {
			included[name] = rewardsJSON(v.CatalogItems)
		}
	}
	if include["branches"] {
		included["branches"] = branchesJSON(v.Branches)
	}
	return included
}

// branchesJSON is a list of branches on the wire.
func branchesJSON(list []loyalty.Branch) []branchJSON {
	out := make([]branchJSON, len(list))
	for i, b := range list {
		out[i] = toBranchJSON(b)
	}
	return out
}
