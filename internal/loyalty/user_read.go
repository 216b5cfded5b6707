package loyalty

import (
	"context"
	"slices"
	"strings"
)

// Include names of the user API's reads.
var (
	UserIncludes = []string{"businesses", "branches", "catalog_items", "offers", "coupons", "giftcards", "products",
		"social_media", "coalition", "balance", "user_emails", "user_phone_numbers", "punch_cards"}
	UserBusinessIncludes = []string{"offers", "products", "giftcards", "catalog_items", "social_media", "branches", "punch_cards"}
)

// Self checks that a path id names the person a token stands for: "me",
// or the person's own id. Another person's id is 403; a string that
// cannot be an id is 400.
func Self(pathID, tokenUserID string) error {
	id := strings.ToLower(pathID)
	switch {
	case id == "me" || id == tokenUserID:
		return nil
	case !ValidID(id):
		return Errorf(EBadRequest, "Invalid user id supplied.")
	default:
		return Errorf(EForbidden, "A user token reaches only its own user.")
	}
}

// Person returns the person's own record.
func (s *UserService) Person(ctx context.Context, id string) (Person, error) {
	p, err := s.Store.Person(ctx, id)
	if ErrorCode(err) == ENotFound {
		return p, Errorf(ENotFound, "User not found.")
	}
	return p, err
}

// Memberships returns the person's memberships among the program's
// businesses, each with its balance.
func (s *UserService) Memberships(ctx context.Context, p Program, userID string) ([]Membership, error) {
	return s.Store.Memberships(ctx, userID, p.BusinessIDs())
}

// Total is the cumulative balance of several memberships.
func Total(ms []Membership) Balance {
	var b Balance
	for _, m := range ms {
		x := m.Balance
		b.Points += x.Points
		b.Giftcard += x.Giftcard
		b.Pending += x.Pending
		b.Expired += x.Expired
		// The next expiry of any of the businesses, with what expires then.
		switch {
		case x.ExpiringAt.IsZero():
		case b.ExpiringAt.IsZero() || x.ExpiringAt.Before(b.ExpiringAt):
			b.Expiring, b.ExpiringAt = x.Expiring, x.ExpiringAt
		case x.ExpiringAt.Equal(b.ExpiringAt):
			b.Expiring += x.Expiring
		}
	}
	return b
}

// Rewards returns the rewards the businesses offer the person now, split
// into custom rewards and catalog items: the ones for everyone, for the
// person as a target, or for the tier level the person holds.
func (s *UserService) Rewards(ctx context.Context, userID string, ms []Membership) (custom, catalog []Reward, err error) {
	now := s.Store.Now()
	for _, m := range ms {
		list, err := allPages(func(q ListQuery) ([]Reward, int, error) { return s.Store.Rewards(ctx, m.Business.ID, q) })
		if err != nil {
			return nil, nil, err
		}
		var level *int64
		for _, r := range list {
			if r.Audience == AudienceTiers && level == nil {
				l, err := customerLevel(ctx, s.Store, m.Business.ID, userID)
				if err != nil {
					return nil, nil, err
				}
				level = &l
			}
			l := int64(0)
			if level != nil {
				l = *level
			}
			switch {
			case !r.Available(now) || !r.OpenTo(userID, l):
			case r.Kind == CustomReward:
				custom = append(custom, r)
			default:
				catalog = append(catalog, r)
			}
		}
	}
	return custom, catalog, nil
}

// Offers returns the offers the person sees in the businesses, each with
// the actions the person can take now.
func (s *UserService) Offers(ctx context.Context, userID string, ms []Membership) ([]CustomerOffer, error) {
	now := s.Store.Now()
	var out []CustomerOffer
	for _, m := range ms {
		rules, err := s.Store.Rules(ctx, m.Business)
		if err != nil {
			return nil, err
		}
		list, err := customerOffers(ctx, s.Store, m.Business.ID, userID, now, zoneOf(rules.TimeZone))
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// Offer returns one offer the person sees, or 404.
func (s *UserService) Offer(ctx context.Context, userID string, ms []Membership, id string) (CustomerOffer, error) {
	oid, err := intID("offer", id)
	if err != nil {
		return CustomerOffer{}, err
	}
	list, err := s.Offers(ctx, userID, ms)
	if err != nil {
		return CustomerOffer{}, err
	}
	i := slices.IndexFunc(list, func(o CustomerOffer) bool { return o.ID == oid })
	if i < 0 {
		return CustomerOffer{}, offerNotFound()
	}
	return list[i], nil
}

// Coupons returns the person's coupons that can still be claimed.
func (s *UserService) Coupons(ctx context.Context, userID string, ms []Membership) ([]Coupon, error) {
	now := s.Store.Now()
	var out []Coupon
	for _, m := range ms {
		list, err := availableCoupons(ctx, s.Store, m.Business.ID, userID, now)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

// Giftcards returns the gift cards on sale now in the businesses.
func (s *UserService) Giftcards(ctx context.Context, ms []Membership) ([]Giftcard, error) {
	now := s.Store.Now()
	var out []Giftcard
	for _, m := range ms {
		list, err := allPages(func(q ListQuery) ([]Giftcard, int, error) { return s.Store.Giftcards(ctx, m.Business.ID, q) })
		if err != nil {
			return nil, err
		}
		for _, g := range list {
			if g.Available(now) {
				out = append(out, g)
			}
		}
	}
	return out, nil
}

// Giftcard returns one gift card on sale in one of the businesses, or 404.
func (s *UserService) Giftcard(ctx context.Context, ms []Membership, id string) (Giftcard, error) {
	gid, err := intID("gift card", id)
	if err != nil {
		return Giftcard{}, err
	}
	for _, m := range ms {
		g, err := s.Store.Giftcard(ctx, m.Business.ID, gid)
		if ErrorCode(err) == ENotFound {
			continue
		} else if err != nil {
			return Giftcard{}, err
		}
		if g.Available(s.Store.Now()) {
			return g, nil
		}
	}
	return Giftcard{}, Errorf(ENotFound, "Gift card not found.")
}

// Businesses returns the coalition businesses the person belongs to; a
// business key's list is empty.
func (s *UserService) Businesses(p Program, ms []Membership) []Membership {
	if p.Tenant.CoalitionID == "" {
		return []Membership{}
	}
	return ms
}

// Business returns one business of the program the person belongs to, or
// 404.
func (s *UserService) Business(ms []Membership, id string) (Membership, error) {
	id = strings.ToLower(id)
	if !ValidID(id) {
		return Membership{}, Errorf(EBadRequest, "Invalid business id supplied.")
	}
	m, ok := memberOf(ms, id)
	if !ok {
		return Membership{}, Errorf(ENotFound, "Business not found.")
	}
	return m, nil
}
