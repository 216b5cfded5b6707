package loyalty

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"slices"
	"time"
)

// getCouponIntent issues a coupon of a coupon offer to the customer,
// paying its points cost if it has one.
type getCouponIntent struct{}

func (getCouponIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentGetCoupon, "amount", "points", "visits")
	e.OfferID = ref(v, "offer", in.Offer)
}

func (getCouponIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	o, err := tx.Offer(ctx, r.b.ID, e.OfferID)
	if err == nil && o.Deleted {
		err = Errorf(ENotFound, "deleted")
	}
	if err != nil {
		return notFoundField(err, "Offer not found.")
	}
	now := tx.Now()
	switch {
	case o.TypeID == OfferPointsMultiplier || o.TypeID == OfferBonusPoints:
		return Invalid("offer.id", "Points offers apply to rewards by themselves; they issue no coupon.")
	case !o.Active(now):
		return Invalid("offer.id", "The offer is not active.")
	case o.Targeted && !slices.Contains(o.TargetIDs, e.CustomerID):
		return Invalid("offer.id", "The offer is not available to this customer.")
	}
	if err := useCouponOffer(ctx, tx, r.b, o, e.CustomerID, now); err != nil {
		return err
	}
	kind := o.CouponKind
	if kind != CouponConvertible {
		kind = CouponRegular
	}
	c := Coupon{BusinessID: r.b.ID, OfferID: o.ID, CustomerID: e.CustomerID, QRCode: newQRCode(), CouponTypeID: kind,
		ExpiresAt: o.CouponExpiry(now), CreatedAt: now, UpdatedAt: now, Offer: o}
	if err := tx.InsertCoupon(ctx, &c); err != nil {
		return err
	}
	if err := record(ctx, tx, r.b.ID, EventCouponIssued, newCouponEventJSON(c)); err != nil {
		return err
	}
	e.CouponID, e.Points, e.Coupon = c.ID, -o.Points, &c
	if r.gift {
		e.Points = 0
	}
	return appendEntry(ctx, tx, e)
}

// newQRCode returns a random, unguessable coupon code.
func newQRCode() string {
	b := make([]byte, 15)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base32.StdEncoding.EncodeToString(b)
}

// claimCouponIntent redeems an issued coupon, once.
type claimCouponIntent struct{}

func (claimCouponIntent) check(in *TransactionInput, e *Transaction, v Validation) {
	in.unused(v, IntentClaimCoupon, "points", "visits")
	e.CouponID = ref(v, "coupon", in.Coupon)
	if in.Offer.Set {
		e.OfferID = ref(v, "offer", in.Offer)
	}
	if in.Amount.Set {
		e.Amount = in.positiveAmount(v)
	}
}

func (claimCouponIntent) apply(ctx context.Context, _ *TransactionService, tx Tx, r *entryRequest) error {
	e := &r.entry
	c, err := tx.Coupon(ctx, r.b.ID, e.CouponID)
	if err == nil && c.CustomerID != e.CustomerID {
		err = Errorf(ENotFound, "another customer's coupon")
	}
	if err != nil {
		return notFoundField(err, "Coupon not found.")
	}
	if e.OfferID != 0 && e.OfferID != c.OfferID {
		return Invalid("offer.id", "The coupon was not issued for this offer.")
	}
	now := tx.Now()
	switch {
	case c.Claimed():
		return Invalid("coupon.id", "The coupon has already been claimed.")
	case c.Locked:
		return Invalid("coupon.id", "The coupon is locked.")
	case !c.ExpiresAt.IsZero() && !c.ExpiresAt.After(now):
		return Invalid("coupon.id", "The coupon has expired.")
	case !c.TakenBackAt.IsZero():
		return Invalid("coupon.id", "The coupon was taken back: the purchase that earned it was returned.")
	}
	from := c.CouponTypeID
	if c.CouponTypeID == CouponConvertible {
		c.CouponTypeID = CouponConvertibleRedeemed
	} else {
		c.CouponTypeID = CouponRegularRedeemed
	}
	if c.Offer, err = tx.Offer(ctx, r.b.ID, c.OfferID); err != nil {
		return err
	}
	if c.Offer.HasPurchaseRange() && !c.Offer.AppliesTo(e.Amount) {
		return Invalid("amount", "The offer applies to a purchase amount of "+purchaseRange(r.b, c.Offer)+"; send the amount of the purchase.")
	}
	c.ClaimedAt, c.UpdatedAt = now, now
	ok, err := tx.ClaimCoupon(ctx, &c, from)
	if err != nil {
		return err
	}
	if !ok {
		return Invalid("coupon.id", "The coupon has already been claimed, or was taken back meanwhile.")
	}
	if err := record(ctx, tx, r.b.ID, EventCouponClaimed, newCouponEventJSON(c)); err != nil {
		return err
	}
	e.OfferID, e.Coupon = c.OfferID, &c
	return appendEntry(ctx, tx, e)
}

// useCouponOffer applies the offer's frequency to a coupon issued at now:
// a day-and-time offer issues only in its window, a limited one records
// the use in its period (a day or a week of the business's time zone, or
// once ever), refusing a second one.
func useCouponOffer(ctx context.Context, tx Tx, b Business, o Offer, customerID string, now time.Time) error {
	if o.Frequency == 0 {
		return nil
	}
	loc := time.UTC // once ever counts in no zone
	if o.Frequency != OfferOnce {
		rules, err := rulesOf(ctx, tx, b)
		if err != nil {
			return err
		}
		loc = zoneOf(rules.TimeZone)
	}
	if !o.InWindow(now, loc) {
		return Invalid("offer.id", "The offer is available only on its days and hours, and not now.")
	}
	if !o.Limited() {
		return nil
	}
	ok, err := tx.UseOffer(ctx, o.ID, customerID, o.UsePeriod(now, loc), now)
	if err != nil || ok {
		return err
	}
	switch o.Frequency {
	case OfferDaily:
		return Invalid("offer.id", "The offer is one per customer a day, and this customer has had it today.")
	case OfferWeekly:
		return Invalid("offer.id", "The offer is one per customer a week (Monday to Sunday), and this customer has had it this week.")
	}
	return Invalid("offer.id", "The offer is one per customer, and this customer has had it.")
}
