package loyalty

import (
	"context"
	"slices"
	"time"
)

// maxTargets bounds the customers of one targeted offer per request.
const maxTargets = 1000

// offerTypes are the type_id codes an offer may have (spec 2.5).
var offerTypes = []int{OfferPointsMultiplier, OfferFreeProduct, OfferBonusPoints, OfferBasic8, OfferBasic9, OfferBasic10}

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
	loc, err := s.zone(ctx, b)
	if err != nil {
		return nil, 0, err
	}
	all, err := customerOffers(ctx, s.Store, b.ID, c.ID, now, loc)
	if err != nil {
		return nil, 0, err
	}
	list := slices.DeleteFunc(all, func(co CustomerOffer) bool { return !co.matches(q.Filters) })
	return pageOf(list, q), len(list), nil
}

// AvailableCoupons pages the coupons a customer can still claim.
func (s *OfferService) AvailableCoupons(ctx context.Context, b Business, customerID string, q ListQuery) ([]Coupon, int, error) {
	c, err := s.customer(ctx, b, customerID)
	if err != nil {
		return nil, 0, err
	}
	list, err := availableCoupons(ctx, s.Store, b.ID, c.ID, s.Store.Now())
	return pageOf(list, q), len(list), err
}

// customer reads an active customer of the business named by a path id.
func (s *OfferService) customer(ctx context.Context, b Business, id string) (Customer, error) {
	id, err := customerIDOf(id)
	if err != nil {
		return Customer{}, err
	}
	return s.Store.Customer(ctx, b.ID, id)
}

// zone returns the business's time zone, in which the offers' days, weeks
// and hours count.
func (s *OfferService) zone(ctx context.Context, b Business) (*time.Location, error) {
	if b.Loaded != nil {
		return zoneOf(b.Loaded.Rules.TimeZone), nil
	}
	r, err := s.Store.Rules(ctx, b)
	return zoneOf(r.TimeZone), err
}
