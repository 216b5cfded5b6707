package loyalty

import (
	"context"
	"slices"
	"strings"
)

// maxTargets bounds the customers of one targeted offer per request.
const maxTargets = 1000

// offerTypes are the type_id codes an offer may have (spec 2.5).
var offerTypes = []int{OfferPointsMultiplier, OfferFreeProduct, OfferBonusPoints, OfferBasic8, OfferBasic9, OfferBasic10}

// OfferInput is the body of an offer create or update. Every field records
// whether it was sent.
type OfferInput struct {
	Title         Opt[string]   `json:"title"`
	Description   Opt[string]   `json:"description"`
	ExpiresAt     Opt[string]   `json:"expires_at"`
	Images        Opt[[]Image]  `json:"images"`
	Enabled       Opt[bool]     `json:"enabled"`
	TypeID        Opt[int]      `json:"type_id"`
	Points        Opt[int64]    `json:"points"`
	MultipFactor  Opt[Money]    `json:"multip_factor"`
	DiscountValue Opt[Money]    `json:"discount_value"`
	RealValue     Opt[Money]    `json:"real_value"`
	StartsAt      Opt[string]   `json:"starts_at"`
	Branches      Opt[[]string] `json:"branches"`
	Targeted      Opt[bool]     `json:"targeted"`
	Customers     Opt[[]string] `json:"customers"`
	Convertible   Opt[bool]     `json:"convertible"`
}

// shared returns the fields every catalog object has.
func (in *OfferInput) shared() catalogInput {
	return catalogInput{in.Title, in.Description, in.ExpiresAt, in.Images, in.Enabled}
}

// OfferListSpec says how GET /offers is paged and filtered.
var OfferListSpec = ListSpec{
	Fields:         map[string]FilterKind{"type_id": KindInt, "created_at": KindTime, "updated_at": KindTime},
	Reserved:       []string{"relationships"},
	DefaultPerPage: 100,
}

// OfferService holds the rules for a business's offers and for what a
// customer sees of them.
type OfferService struct {
	Store Store
}

// Create adds an offer. It starts now unless starts_at says otherwise.
func (s *OfferService) Create(ctx context.Context, b Business, in OfferInput) (Offer, error) {
	v := Validation{}
	o := Offer{BusinessID: b.ID, Enabled: true, CouponKind: CouponRegular, Images: []Image{}}
	if t, ok := in.TypeID.Value(); !ok {
		v.Add("type_id", "The type id field is required; one of 1, 2, 3, 8, 9, 10.")
	} else if !slices.Contains(offerTypes, t) {
		v.Add("type_id", "The selected type id is invalid; one of 1, 2, 3, 8, 9, 10.")
	} else {
		o.TypeID = t
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		now := tx.Now()
		o.StartsAt, o.CreatedAt, o.UpdatedAt = now, now, now
		if err := s.apply(ctx, tx, v, b, &in, &o, true); err != nil {
			return err
		}
		return tx.InsertOffer(ctx, &o)
	})
	return o, err
}

// Update changes the fields sent; the type of an offer cannot change.
func (s *OfferService) Update(ctx context.Context, b Business, id string, in OfferInput) (Offer, error) {
	oid, err := intID("offer", id)
	if err != nil {
		return Offer{}, err
	}
	var out Offer
	err = s.Store.WithTx(ctx, func(tx Tx) error {
		o, err := liveOffer(ctx, tx, b.ID, oid)
		if err != nil {
			return err
		}
		v := Validation{}
		if t, ok := in.TypeID.Value(); (ok && t != o.TypeID) || in.TypeID.Null {
			v.Add("type_id", "The type id of an offer cannot be changed.")
		}
		if err := s.apply(ctx, tx, v, b, &in, &o, false); err != nil {
			return err
		}
		o.UpdatedAt = tx.Now()
		out = o
		return tx.UpdateOffer(ctx, &o)
	})
	return out, err
}

// Delete removes an offer from every list; coupons and transactions that
// name it keep it.
func (s *OfferService) Delete(ctx context.Context, b Business, id string) error {
	oid, err := intID("offer", id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		o, err := liveOffer(ctx, tx, b.ID, oid)
		if err != nil {
			return err
		}
		o.Deleted, o.UpdatedAt = true, tx.Now()
		return tx.UpdateOffer(ctx, &o)
	})
}

// Get returns one offer of the business.
func (s *OfferService) Get(ctx context.Context, b Business, id string) (Offer, error) {
	oid, err := intID("offer", id)
	if err != nil {
		return Offer{}, err
	}
	return s.Store.Offer(ctx, b.ID, oid)
}

// List pages the offers of the business, expired and targeted ones included.
func (s *OfferService) List(ctx context.Context, b Business, q ListQuery) ([]Offer, int, error) {
	return s.Store.Offers(ctx, b.ID, q)
}

// liveOffer reads an offer that is not deleted inside tx.
func liveOffer(ctx context.Context, tx Tx, businessID string, id int64) (Offer, error) {
	o, err := tx.Offer(ctx, businessID, id)
	if err == nil && o.Deleted {
		err = offerNotFound()
	}
	return o, err
}

func offerNotFound() error { return Errorf(ENotFound, "Offer not found.") }

// apply validates in, merges it into o and checks the offer as a whole.
func (s *OfferService) apply(ctx context.Context, tx Tx, v Validation, b Business, in *OfferInput, o *Offer, create bool) error {
	in.shared().apply(v, catalogFields{&o.Title, &o.Description, &o.ExpiresAt, &o.Images, &o.Enabled}, create)
	setTime(v, "starts_at", in.StartsAt, &o.StartsAt, false)
	setPoints(v, "points", in.Points, &o.Points)
	setMoney(v, "multip_factor", in.MultipFactor, &o.MultipFactor)
	setMoney(v, "discount_value", in.DiscountValue, &o.DiscountValue)
	setMoney(v, "real_value", in.RealValue, &o.RealValue)
	setBool(v, "targeted", in.Targeted, &o.Targeted)
	if c, ok := in.Convertible.Value(); ok {
		o.CouponKind = CouponRegular
		if c {
			o.CouponKind = CouponConvertible
		}
	} else if in.Convertible.Null {
		v.Add("convertible", "The convertible field must be true or false.")
	}
	if in.Branches.Set {
		ids, err := checkBranches(ctx, tx, v, b.ID, in.Branches.V)
		if err != nil {
			return err
		}
		o.BranchIDs = ids
	}
	if in.Customers.Set {
		ids, err := checkTargets(ctx, tx, v, b.ID, in.Customers.V)
		if err != nil {
			return err
		}
		o.TargetIDs = ids
	}
	switch {
	case !o.Targeted && len(in.Customers.V) > 0:
		v.Add("customers", "Customers can only be given for a targeted offer.")
	case !o.Targeted:
		o.TargetIDs = nil
	case len(o.TargetIDs) == 0 && len(in.Customers.V) == 0:
		v.Add("customers", "A targeted offer needs at least one customer.")
	}
	checkOfferType(v, o)
	if !v.Has("expires_at") && !v.Has("starts_at") && !o.ExpiresAt.IsZero() && !o.ExpiresAt.After(o.StartsAt) {
		v.Add("expires_at", "The expires at must be a date after starts at.")
	}
	return v.Err()
}

// checkOfferType checks the fields each type of offer needs.
func checkOfferType(v Validation, o *Offer) {
	switch o.TypeID {
	case OfferPointsMultiplier:
		if !v.Has("multip_factor") && (o.MultipFactor <= 100 || o.MultipFactor > 100_00) {
			v.Add("multip_factor", "A points multiplier needs a multip factor greater than 1 and at most 100.")
		}
	case OfferBonusPoints:
		if !v.Has("points") && o.Points <= 0 {
			v.Add("points", "A bonus points offer needs points greater than 0.")
		}
	case OfferBasic9:
		if !v.Has("discount_value") && (o.DiscountValue <= 0 || o.DiscountValue > 100_00) {
			v.Add("discount_value", "A percent-off offer needs a discount value greater than 0 and at most 100.")
		}
	case OfferBasic10:
		if !v.Has("discount_value") && o.DiscountValue <= 0 {
			v.Add("discount_value", "An amount-off offer needs a discount value greater than 0.")
		}
	}
	if o.TypeID != 0 && !o.CouponOffer() && o.CouponKind == CouponConvertible {
		v.Add("convertible", "Only coupon offers (type 2, 8, 9, 10) can be convertible.")
	}
}

// checkTargets checks that every id names a customer of the business and
// returns the ids without repeats.
func checkTargets(ctx context.Context, tx Tx, v Validation, businessID string, ids []string) ([]string, error) {
	if len(ids) > maxTargets {
		v.Add("customers", "At most "+itoa(maxTargets)+" customers may be given.")
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for i, id := range ids {
		id = strings.ToLower(strings.TrimSpace(id))
		field := "customers." + itoa(i)
		if !ValidID(id) {
			v.Add(field, "The customer id is not a valid id.")
			continue
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		c, err := tx.CustomerAny(ctx, businessID, id)
		if ErrorCode(err) == ENotFound || (err == nil && c.Deleted) {
			v.Add(field, "The customer does not exist.")
			continue
		} else if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// CustomerOffers pages what one customer sees of the offers, each with the
// actions the customer can take now.
func (s *OfferService) CustomerOffers(ctx context.Context, b Business, customerID string, q ListQuery) ([]CustomerOffer, int, error) {
	if err := checkCouponFilter(q); err != nil {
		return nil, 0, err
	}
	c, err := s.customer(ctx, b, customerID)
	if err != nil {
		return nil, 0, err
	}
	now := s.Store.Now()
	list, total, err := s.Store.CustomerOffers(ctx, b.ID, c.ID, now, q)
	for i := range list {
		list[i].Actions = []string{}
		if list[i].CanGetCoupon(now) {
			list[i].Actions = append(list[i].Actions, IntentGetCoupon)
		}
	}
	return list, total, err
}

// AvailableCoupons pages the coupons a customer can still claim.
func (s *OfferService) AvailableCoupons(ctx context.Context, b Business, customerID string, q ListQuery) ([]Coupon, int, error) {
	c, err := s.customer(ctx, b, customerID)
	if err != nil {
		return nil, 0, err
	}
	return s.Store.AvailableCoupons(ctx, b.ID, c.ID, s.Store.Now(), q)
}

// customer reads an active customer of the business named by a path id.
func (s *OfferService) customer(ctx context.Context, b Business, id string) (Customer, error) {
	id, err := customerIDOf(id)
	if err != nil {
		return Customer{}, err
	}
	return s.Store.Customer(ctx, b.ID, id)
}
