package loyalty

import (
	"context"
	"slices"
	"strings"
	"time"
)

// The reference's two narrower views of a customer's offers: the offers
// targeted at the customer, and the offers that would apply to the
// customer's next purchase (claimable). Both start from the customer's
// offers as GET /customers/{id}/offers reads them, and decide here which
// of those qualify.

// TargetedOfferSpec says how GET /customers/{id}/targeted-offers is paged
// and filtered.
var TargetedOfferSpec = ListSpec{
	Fields:         map[string]FilterKind{"branch.id": KindString, "type_id": KindInt},
	Reserved:       []string{"relationships", "include"},
	DefaultPerPage: 15,
}

// ClaimableOfferSpec says how GET /customers/{id}/claimable-offers is
// paged; amount and branch_id are its own parameters, not filters.
var ClaimableOfferSpec = ListSpec{
	Reserved:       []string{"relationships", "amount", "branch_id"},
	DefaultPerPage: 15,
}

// ClaimableOffer is an offer that would apply to a customer's purchase,
// with its rank: the offer of priority 1 is the one applied first.
type ClaimableOffer struct {
	CustomerOffer
	Priority int
}

// TargetedAt reports whether the offer is an active offer targeted at the
// customer: the reference's targeted offers.
func (c CustomerOffer) TargetedAt(now time.Time) bool {
	return c.Targeted && c.IsTarget && c.Active(now)
}

// AvailableAt reports whether the offer can be used at the branch (an
// offer of every branch is available at each).
func (o Offer) AvailableAt(branchID string) bool {
	return len(o.BranchIDs) == 0 || slices.Contains(o.BranchIDs, strings.ToLower(branchID))
}

// ClaimableFor reports whether the offer would apply to the customer's
// purchase of amount now at branchID ("" for any branch): active, open to
// the customer, within its purchase range, available at the branch, and
// neither used (an offer of one use) nor claimed by the customer before.
func (c CustomerOffer) ClaimableFor(now time.Time, amount Money, branchID string) bool {
	claimed := Coupon{CouponTypeID: c.CouponTypeID}.Claimed()
	return c.Active(now) && (!c.Targeted || c.IsTarget) && !c.Used && !claimed && c.AppliesTo(amount) &&
		(branchID == "" || c.AvailableAt(branchID))
}

// TargetedOffers pages the active offers targeted at a customer, filtered
// by branch.id (eq, in) and type_id (eq, in).
func (s *OfferService) TargetedOffers(ctx context.Context, b Business, customerID string, q ListQuery) ([]CustomerOffer, int, error) {
	for _, f := range q.Filters {
		if f.Op != OpEq && f.Op != OpIn {
			return nil, 0, Errorf(EBadRequest, "The filter %s takes the operators eq and in.", f.Field)
		}
	}
	all, now, err := s.allCustomerOffers(ctx, b, customerID)
	if err != nil {
		return nil, 0, err
	}
	var out []CustomerOffer
	for _, c := range all {
		if c.TargetedAt(now) && c.matches(q.Filters) {
			out = append(out, c)
		}
	}
	return pageOf(out, q), len(out), nil
}

// matches reports whether the customer's offer passes every filter of a
// customer's offer list: branch.id (eq, in: available at one of them),
// type_id (eq, in) and coupon_type_id (eq, in, not_in; a customer holding
// no coupon of the offer passes not_in).
func (c CustomerOffer) matches(filters []Filter) bool {
	for _, f := range filters {
		ok := slices.ContainsFunc(f.Values, func(v any) bool {
			switch f.Field {
			case "branch.id":
				s, _ := v.(string)
				return c.AvailableAt(s)
			case "type_id":
				n, _ := v.(int64)
				return int64(c.TypeID) == n
			case "coupon_type_id":
				n, _ := v.(int64)
				return int64(c.CouponTypeID) == n
			}
			return false
		})
		if ok == (f.Op == OpNotIn) {
			return false
		}
	}
	return true
}

// ClaimableOffers pages the offers that would apply to a customer's
// purchase of amount (required, the reference's amount=) at branchID
// (optional: "" is any branch; else one of the business's), in the order
// they apply, each with its priority.
func (s *OfferService) ClaimableOffers(ctx context.Context, b Business, customerID, amount, branchID string, q ListQuery) ([]ClaimableOffer, int, error) {
	v := Validation{}
	var m Money
	switch amount = strings.TrimSpace(amount); {
	case amount == "":
		v.Add("amount", "The amount field is required (the purchase amount).")
	default:
		var err error
		if m, err = ParseMoney(amount); err != nil || m < 0 {
			v.Add("amount", "The amount must be a number of 0 or more with at most 2 decimals.")
		}
	}
	if branchID != "" {
		branches, err := s.Store.Branches(ctx, b.ID)
		if err != nil {
			return nil, 0, err
		}
		if !slices.ContainsFunc(branches, func(br Branch) bool { return strings.EqualFold(br.ID, branchID) }) {
			v.Add("branch_id", "The branch_id is not a branch of the business.")
		}
	}
	if err := v.Err(); err != nil {
		return nil, 0, err
	}
	all, now, err := s.allCustomerOffers(ctx, b, customerID)
	if err != nil {
		return nil, 0, err
	}
	var out []ClaimableOffer
	for _, c := range all {
		if c.ClaimableFor(now, m, branchID) {
			out = append(out, ClaimableOffer{CustomerOffer: c, Priority: len(out) + 1})
		}
	}
	return pageOf(out, q), len(out), nil
}

// allCustomerOffers reads every offer of a customer with its actions (as
// CustomerOffers, unfiltered), with the time they were read at.
func (s *OfferService) allCustomerOffers(ctx context.Context, b Business, customerID string) ([]CustomerOffer, time.Time, error) {
	c, err := s.customer(ctx, b, customerID)
	if err != nil {
		return nil, time.Time{}, err
	}
	now := s.Store.Now()
	loc, err := s.zone(ctx, b)
	if err != nil {
		return nil, now, err
	}
	all, err := customerOffers(ctx, s.Store, b.ID, c.ID, now, loc)
	return all, now, err
}

// customerOfferReader reads what a customer's offers are decided from.
type customerOfferReader interface {
	AllOffers(ctx context.Context, businessID string) ([]Offer, error)
	CustomerCoupons(ctx context.Context, businessID, customerID string) ([]Coupon, error)
	CustomerOfferFacts(ctx context.Context, customerID string, offerIDs []int64, periods []string) (OfferFacts, error)
}

// customerOffers reads a business's offers and a customer's coupons and
// part in them, and decides what the customer sees at now in the
// business's time zone loc (CustomerOffersOf), each offer with the
// actions the customer can take (get_coupon: CanGetCoupon, in the
// offer's day-and-time window).
func customerOffers(ctx context.Context, st customerOfferReader, businessID, customerID string, now time.Time, loc *time.Location) ([]CustomerOffer, error) {
	all, err := st.AllOffers(ctx, businessID)
	if err != nil {
		return nil, err
	}
	coupons, err := st.CustomerCoupons(ctx, businessID, customerID)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(all))
	for i, o := range all {
		ids[i] = o.ID
	}
	periods := UsePeriods(now, loc)
	facts, err := st.CustomerOfferFacts(ctx, customerID, ids, periods.names())
	if err != nil {
		return nil, err
	}
	list := CustomerOffersOf(all, coupons, facts, now, periods)
	for i := range list {
		list[i].Actions = []string{}
		if list[i].CanGetCoupon(now) && list[i].InWindow(now, loc) {
			list[i].Actions = append(list[i].Actions, IntentGetCoupon)
		}
	}
	return list, nil
}

// CustomerOffersOf decides what one customer sees of a business's offers
// (all, not deleted) at now, given the customer's coupons and part in the
// offers (targets, uses in periods), oldest offer first: the offers active
// and open to the customer (a targeted one only to its targets, a limited
// one only until used in its period), and every other offer the customer
// holds a coupon of that shows a state (CouponState).
func CustomerOffersOf(all []Offer, coupons []Coupon, facts OfferFacts, now time.Time, periods OfferPeriods) []CustomerOffer {
	byOffer := map[int64][]Coupon{}
	for _, c := range coupons {
		byOffer[c.OfferID] = append(byOffer[c.OfferID], c)
	}
	var out []CustomerOffer
	for _, o := range all {
		co := CustomerOffer{Offer: o, CouponTypeID: CouponState(byOffer[o.ID], now), IsTarget: facts.Targets[o.ID],
			Used: facts.usedUp(o, periods)}
		if co.CouponTypeID != 0 || (o.Active(now) && (!o.Targeted || co.IsTarget) && !co.Used) {
			out = append(out, co)
		}
	}
	return out
}

// CouponState is the state a customer's coupons of one offer show on the
// offer at now: an available coupon's (the highest issued state among the
// unexpired ones) while there is one, else a claimed one's (the highest
// claimed state), else 0. An issued coupon that expired shows nothing.
func CouponState(coupons []Coupon, now time.Time) int {
	available, claimed := 0, 0
	for _, c := range coupons {
		switch {
		case c.Available(now):
			available = max(available, c.CouponTypeID)
		case c.Claimed():
			claimed = max(claimed, c.CouponTypeID)
		}
	}
	if available != 0 {
		return available
	}
	return claimed
}

// availableCoupons reads a customer's coupons and keeps those Available
// at now, oldest first.
func availableCoupons(ctx context.Context, st customerOfferReader, businessID, customerID string, now time.Time) ([]Coupon, error) {
	list, err := st.CustomerCoupons(ctx, businessID, customerID)
	return slices.DeleteFunc(list, func(c Coupon) bool { return !c.Available(now) }), err
}

// pageOf is the page q asks for of a list kept in memory.
func pageOf[T any](list []T, q ListQuery) []T {
	from := min(q.Offset(), len(list))
	return list[from:min(from+q.PerPage, len(list))]
}
