package loyalty

import "context"

// AccountIncludes are the related objects GET /me can include: the
// spec's names, the reference platform's catalog and social (the same as
// catalog_items and social_media), and business and settings, which its
// sample app asks for. Products and social media are not kept by the
// service: their lists are empty.
var AccountIncludes = []string{"offers", "products", "giftcards", "catalog_items", "catalog", "social_media", "social",
	"branches", "business", "settings"}

// AccountService reads a business's own account: the business, and the
// owner signed in to it.
type AccountService struct {
	Store Store
}

// Business returns a business, as the rules that depend on it (country,
// name, loyalty type) need it.
func (s *AccountService) Business(ctx context.Context, id string) (Business, error) {
	return s.Store.Business(ctx, id)
}

// AccountView is the account of GET /me with the business's catalog that
// include names: the first 100 offers, gift cards and catalog items, and
// every branch.
type AccountView struct {
	Account      Account
	Offers       []Offer
	Giftcards    []Giftcard
	CatalogItems []Reward
	Branches     []Branch
}

// accountPage is how much of each catalog list GET /me includes.
var accountPage = ListQuery{Page: 1, PerPage: 100}

// View returns the owner's account in the business with what include
// names (AccountIncludes).
func (s *AccountService) View(ctx context.Context, businessID, ownerID string, include map[string]bool) (AccountView, error) {
	a, err := s.Store.Account(ctx, businessID, ownerID)
	if err != nil {
		return AccountView{}, err
	}
	v := AccountView{Account: a}
	id := a.Business.ID
	if include["offers"] {
		if v.Offers, _, err = s.Store.Offers(ctx, id, accountPage); err != nil {
			return AccountView{}, err
		}
	}
	if include["giftcards"] {
		if v.Giftcards, _, err = s.Store.Giftcards(ctx, id, accountPage); err != nil {
			return AccountView{}, err
		}
	}
	if include["catalog_items"] || include["catalog"] {
		q := accountPage
		q.Filters = []Filter{{Field: "kind", Op: OpEq, Values: []any{CatalogItem}}}
		if v.CatalogItems, _, err = s.Store.Rewards(ctx, id, q); err != nil {
			return AccountView{}, err
		}
	}
	if include["branches"] {
		if v.Branches, err = s.Store.Branches(ctx, id); err != nil {
			return AccountView{}, err
		}
	}
	return v, nil
}
