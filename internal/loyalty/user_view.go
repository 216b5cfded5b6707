package loyalty

import "context"

// Program returns what an Application Key opens to the user API: its
// businesses, and its coalition's name.
func (s *UserService) Program(ctx context.Context, t Tenant) (Program, error) {
	return s.Store.Program(ctx, t)
}

// UserView is a person with the related objects that GET and PATCH
// /users/{id} can include (UserIncludes).
type UserView struct {
	Person Person
	// Memberships are the person's businesses in the program, each with
	// its balance; read whenever something is included.
	Memberships []Membership
	Offering    Offering
	// Coupons are the person's coupons that can still be claimed (include
	// coupons).
	Coupons []Coupon
}

// Offering is what a person's businesses offer them, each list read only
// when its include names it.
type Offering struct {
	Branches     []Branch        // every branch (include branches)
	CatalogItems []Reward        // catalog items available now (include catalog_items)
	Offers       []CustomerOffer // offers the person sees (include offers)
	Giftcards    []Giftcard      // gift cards on sale now (include giftcards)
	PunchCards   []CustomerCard  // the enabled punch cards with the person's stamps (include punch_cards)
	// Products are each business's live products, oldest first, at most
	// UserProductsPerBusiness of each (include products).
	Products []Product
}

// UserProductsPerBusiness bounds the products a member's read includes of
// each business.
const UserProductsPerBusiness = 100

// View returns the person p with what include names, among the program's
// businesses.
func (s *UserService) View(ctx context.Context, pr Program, p Person, include map[string]bool) (UserView, error) {
	v := UserView{Person: p}
	if len(include) == 0 {
		return v, nil
	}
	var err error
	if v.Memberships, err = s.Memberships(ctx, pr, p.ID); err != nil {
		return UserView{}, err
	}
	if v.Offering, err = s.offering(ctx, p.ID, v.Memberships, include); err != nil {
		return UserView{}, err
	}
	if include["coupons"] {
		if v.Coupons, err = s.Coupons(ctx, p.ID, v.Memberships); err != nil {
			return UserView{}, err
		}
	}
	return v, nil
}

// MembershipView is one of the person's businesses with what GET
// /users/{id}/businesses/{business_id} can include (UserBusinessIncludes).
type MembershipView struct {
	Membership Membership
	Offering   Offering
}

// MembershipView returns the person's membership of one business of the
// program, 404 when the person is not its customer, with what include
// names of its offering.
func (s *UserService) MembershipView(ctx context.Context, pr Program, userID, businessID string, include map[string]bool) (MembershipView, error) {
	ms, err := s.Memberships(ctx, pr, userID)
	if err != nil {
		return MembershipView{}, err
	}
	m, err := s.Business(ms, businessID)
	if err != nil {
		return MembershipView{}, err
	}
	o, err := s.offering(ctx, userID, []Membership{m}, include)
	if err != nil {
		return MembershipView{}, err
	}
	return MembershipView{Membership: m, Offering: o}, nil
}

// offering reads what include names of what the businesses of ms offer
// the person.
func (s *UserService) offering(ctx context.Context, userID string, ms []Membership, include map[string]bool) (Offering, error) {
	var o Offering
	var err error
	if include["branches"] {
		for _, m := range ms {
			list, err := s.Store.Branches(ctx, m.Business.ID)
			if err != nil {
				return Offering{}, err
			}
			o.Branches = append(o.Branches, list...)
		}
	}
	if include["catalog_items"] {
		if _, o.CatalogItems, err = s.Rewards(ctx, userID, ms); err != nil {
			return Offering{}, err
		}
	}
	if include["offers"] {
		if o.Offers, err = s.Offers(ctx, userID, ms); err != nil {
			return Offering{}, err
		}
	}
	if include["giftcards"] {
		if o.Giftcards, err = s.Giftcards(ctx, ms); err != nil {
			return Offering{}, err
		}
	}
	if include["products"] {
		o.Products = []Product{}
		for _, m := range ms {
			list, _, err := s.Store.Products(ctx, m.Business.ID, ListQuery{Page: 1, PerPage: UserProductsPerBusiness})
			if err != nil {
				return Offering{}, err
			}
			o.Products = append(o.Products, list...)
		}
	}
	if include["punch_cards"] {
		o.PunchCards = []CustomerCard{}
		for _, m := range ms {
			cards, err := punchCardsOf(ctx, s.Store, m.Business.ID, userID)
			if err != nil {
				return Offering{}, err
			}
			o.PunchCards = append(o.PunchCards, cards...)
		}
	}
	return o, nil
}
