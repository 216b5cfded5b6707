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
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	WebSite    *string    `json:"web_site"`
	Logo       imagesJSON `json:"logo"`
	CoverPhoto imagesJSON `json:"cover_photo"`
}

func toBranchJSON(b loyalty.Branch) branchJSON {
	return branchJSON{ID: b.ID, Name: b.Name, WebSite: nullable(b.WebSite)}
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	include, err := loyalty.ParseNames("include", r.URL.Query().Get("include"), loyalty.AccountIncludes)
	if err != nil {
		return err
	}
	v, err := s.Accounts.View(r.Context(), rc.businessID, rc.token.SubjectID, include)
	if err != nil {
		return err
	}
	o, b := v.Account.Owner, v.Account.Business
	resp := map[string]any{"data": map[string]any{
		"id": b.ID,
		"profile": map[string]any{"id": o.ID, "username": nullable(o.Username), "email": o.Email,
			"first_name": nullable(o.FirstName), "last_name": nullable(o.LastName)},
		"business": map[string]any{"id": b.ID, "name": b.Name, "loyalty_type": b.LoyaltyType,
			"about": nullable(b.About), "logo": nullable(b.Logo), "cover": nullable(b.Cover)},
	}}
	if len(include) > 0 {
		resp["included"] = accountIncluded(v, include)
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// accountIncluded is the included object of GET /me: every list include
// names, empty for those the service does not keep (products, social
// media).
func accountIncluded(v loyalty.AccountView, include map[string]bool) map[string]any {
	included := map[string]any{}
	for name := range include {
		included[name] = []any{}
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
	if include["catalog_items"] {
		included["catalog_items"] = rewardsJSON(v.CatalogItems)
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
