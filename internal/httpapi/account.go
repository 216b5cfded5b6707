package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// AccountIncludes are the related objects GET /me can add.
var accountIncludes = []string{"offers", "products", "giftcards", "catalog_items", "social_media", "branches"}

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
	include, err := loyalty.ParseNames("include", r.URL.Query().Get("include"), accountIncludes)
	if err != nil {
		return err
	}
	a, err := s.Store.Account(r.Context(), rc.businessID, rc.token.SubjectID)
	if err != nil {
		return err
	}
	o, b := a.Owner, a.Business
	resp := map[string]any{"data": map[string]any{
		"id": b.ID,
		"profile": map[string]any{"id": o.ID, "username": nullable(o.Username), "email": o.Email,
			"first_name": nullable(o.FirstName), "last_name": nullable(o.LastName)},
		"business": map[string]any{"id": b.ID, "name": b.Name, "loyalty_type": b.LoyaltyType,
			"about": nullable(b.About), "logo": nullable(b.Logo), "cover": nullable(b.Cover)},
	}}
	if len(include) > 0 {
		included, err := s.accountCatalog(r, b.ID, include)
		if err != nil {
			return err
		}
		if include["branches"] {
			branches, err := s.Store.Branches(r.Context(), b.ID)
			if err != nil {
				return err
			}
			list := make([]branchJSON, len(branches))
			for i, br := range branches {
				list[i] = toBranchJSON(br)
			}
			included["branches"] = list
		}
		resp["included"] = included
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// accountCatalog lists, for GET /me's include, the business's offers, gift
// cards and catalog items (the first 100 of each). Products and social
// media are not kept by the service: their lists are empty.
func (s *Server) accountCatalog(r *http.Request, businessID string, include map[string]bool) (map[string]any, error) {
	ctx := r.Context()
	first := loyalty.ListQuery{Page: 1, PerPage: 100}
	included := map[string]any{}
	for name := range include {
		included[name] = []any{}
	}
	if include["offers"] {
		offers, _, err := s.Store.Offers(ctx, businessID, first)
		if err != nil {
			return nil, err
		}
		list := make([]offerDetailJSON, len(offers))
		for i, o := range offers {
			list[i] = toOfferDetailJSON(o, nil)
		}
		included["offers"] = list
	}
	if include["giftcards"] {
		cards, _, err := s.Store.Giftcards(ctx, businessID, first)
		if err != nil {
			return nil, err
		}
		list := make([]giftcardJSON, len(cards))
		for i, g := range cards {
			list[i] = toGiftcardJSON(g, nil)
		}
		included["giftcards"] = list
	}
	if include["catalog_items"] {
		q := first
		q.Filters = []loyalty.Filter{{Field: "kind", Op: loyalty.OpEq, Values: []any{loyalty.CatalogItem}}}
		items, _, err := s.Store.Rewards(ctx, businessID, q)
		if err != nil {
			return nil, err
		}
		list := make([]rewardJSON, len(items))
		for i, it := range items {
			list[i] = toRewardJSON(it)
		}
		included["catalog_items"] = list
	}
	return included, nil
}
