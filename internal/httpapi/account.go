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
		included := map[string]any{}
		for name := range include {
			// Offers, products and the rest arrive with the engine; until
			// then they are empty lists.
			included[name] = []any{}
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
