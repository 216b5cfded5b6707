package loyalty

import "context"

// Customer include and relationship names.
var (
	CustomerIncludes      = []string{"balance", "tier_level", "tier_progress", "tiers", "referral_programs", "punch_cards"}
	CustomerRelationships = []string{"tier_levels", "user_type", "address"}
)

// CustomerListSpec says how GET /customers is filtered.
func CustomerListSpec(country string) ListSpec {
	return ListSpec{
		Fields: map[string]FilterKind{
			"created_at": KindTime, "updated_at": KindTime, "email": KindEmail, "phone": KindPhone,
		},
		Reserved:       []string{"include"},
		DefaultPerPage: 100,
		Country:        country,
	}
}

// List pages the active customers of the business, each with its balance.
func (s *CustomerService) List(ctx context.Context, b Business, q ListQuery) ([]Customer, int, error) {
	return s.Store.Customers(ctx, b.ID, q)
}

// Get returns one customer of the business; ENotFound says "Customer
// not found.".
func (s *CustomerService) Get(ctx context.Context, b Business, id string) (Customer, error) {
	id, err := customerIDOf(id)
	if err != nil {
		return Customer{}, err
	}
	var c Customer
	if b.NeverExpires {
		c, err = s.Store.CustomerNeverExpiring(ctx, b.ID, id)
	} else {
		c, err = s.Store.Customer(ctx, b.ID, id)
	}
	return c, asNotFound(err, customerNotFound)
}

// CustomerView is a customer with the related objects that GET
// /customers/{id} can include. The balance is the customer's own.
type CustomerView struct {
	Customer Customer
	// Tiers are the business's tier programs (include tiers).
	Tiers []Tier
	// Tier is where the customer stands in the business's enabled tier
	// program (include tier_level or tier_progress); nil when the business
	// has none enabled.
	Tier *TierStatus
	// ReferralPrograms are the business's referral programs with the
	// customer's link to each (include referral_programs).
	ReferralPrograms []CustomerReferral
	// PunchCards are the business's enabled punch cards with the
	// customer's stamps on each (include punch_cards).
	PunchCards []CustomerCard
}

// CustomerReferral is a referral program as one customer shares it.
type CustomerReferral struct {
	Program ReferralProgram
	// LinkPath is the path of the customer's referral link (see
	// ReferralLinkPath); empty when the program is not Shared, whose page
	// would be a 404.
	LinkPath string
}

// View returns one customer of the business with what include names
// (CustomerIncludes); names it does not know read nothing.
func (s *CustomerService) View(ctx context.Context, b Business, id string, include map[string]bool) (CustomerView, error) {
	c, err := s.Get(ctx, b, id)
	if err != nil {
		return CustomerView{}, err
	}
	v := CustomerView{Customer: c}
	standing := include["tier_level"] || include["tier_progress"]
	if include["tiers"] || standing {
		tiers, err := s.Store.Tiers(ctx, b.ID)
		if err != nil {
			return CustomerView{}, err
		}
		if include["tiers"] {
			v.Tiers = tiers
		}
		if t, ok := EnabledTier(tiers); ok && standing {
			st, err := tierStatus(ctx, s.Store, b.ID, c.ID, t)
			if err != nil {
				return CustomerView{}, err
			}
			v.Tier = &st
		}
	}
	if include["punch_cards"] {
		if v.PunchCards, err = punchCardsOf(ctx, s.Store, b.ID, c.ID); err != nil {
			return CustomerView{}, err
		}
	}
	if include["referral_programs"] {
		progs, err := s.Store.ReferralPrograms(ctx, b.ID)
		if err != nil {
			return CustomerView{}, err
		}
		v.ReferralPrograms = make([]CustomerReferral, len(progs))
		for i, p := range progs {
			v.ReferralPrograms[i].Program = p
			if p.Shared() {
				v.ReferralPrograms[i].LinkPath = ReferralLinkPath(p.ID, c.ID)
			}
		}
	}
	return v, nil
}

// CustomerCard is one punch card as a customer stands on it.
type CustomerCard struct {
	Card PunchCard
	PunchProgress
}

// punchCardsOf returns the business's enabled cards with the customer's
// progress on each (none yet: no stamps, never completed).
func punchCardsOf(ctx context.Context, st Store, businessID, customerID string) ([]CustomerCard, error) {
	cards, err := st.PunchCards(ctx, businessID)
	if err != nil {
		return nil, err
	}
	progress, err := st.PunchProgress(ctx, businessID, customerID)
	if err != nil {
		return nil, err
	}
	out := []CustomerCard{}
	for _, c := range cards {
		if c.Enabled {
			out = append(out, CustomerCard{Card: c, PunchProgress: progress[c.ID]})
		}
	}
	return out, nil
}
