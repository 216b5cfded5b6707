package console

import (
	"context"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The customer desk is the console's side of customers and their ledger:
// search, the profile, and the actions a manager takes on one customer.
// Each action checks the actor's role, runs through the same services as
// the API, and is written to the audit log in its own transaction.

// DeskBackend is the storage the desk reads through: the domain's, and
// the ledger one entry at a time for its exports.
type DeskBackend interface {
	loyalty.Store
	loyalty.TransactionExporter
}

// CustomerDesk is the console's customer search, profile and actions.
type CustomerDesk struct {
	Services loyalty.Services
	Store    DeskBackend
}

// business reads the actor's business.
func (d *CustomerDesk) business(ctx context.Context, a loyalty.Actor) (loyalty.Business, error) {
	return d.Store.Business(ctx, a.BusinessID)
}

// on is the desk's services on b's clock: what staff do is dated by the
// business's clock, as through the API, and a sandbox business's may run
// ahead of the real one.
func (d *CustomerDesk) on(b loyalty.Business) loyalty.Services {
	return d.Services.ClockedBy(b.ClockOffset)
}

// CustomerProfile is everything the console shows of one customer.
type CustomerProfile struct {
	View      loyalty.CustomerView // the customer, tier standing and referral links
	Ledger    loyalty.TransactionPage
	Page      int // the ledger's page
	Pages     int
	Coupons   []loyalty.Coupon        // coupons available to claim
	Offers    []loyalty.CustomerOffer // offers open to the customer
	Referrer  *loyalty.Customer       // who referred the customer; nil when nobody did or they left
	Referrals []ReferralOf            // whom the customer referred
	Consent   loyalty.ConsentState    // the marketing consent in force, with its history
}

// ReferralOf is a referral the customer made, with the customer referred.
type ReferralOf struct {
	loyalty.Referral
	Referee loyalty.Customer // zero when the referee has left the business
}

// LedgerPageSize is how many entries a page of a customer's ledger shows.
const LedgerPageSize = 20

// Profile returns a customer of the actor's business with the page of its
// ledger asked for (from 1).
func (d *CustomerDesk) Profile(ctx context.Context, a loyalty.Actor, id string, page int) (CustomerProfile, error) {
	if err := a.Require(loyalty.PermCounter); err != nil {
		return CustomerProfile{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return CustomerProfile{}, err
	}
	svc := d.on(b)
	var p CustomerProfile
	if p.View, err = svc.Customers.View(ctx, b, id, map[string]bool{"tier_progress": true, "referral_programs": true}); err != nil {
		return p, err
	}
	c := p.View.Customer
	p.Page = max(page, 1)
	q := loyalty.ListQuery{Page: p.Page, PerPage: LedgerPageSize}
	if p.Ledger, err = svc.Transactions.History(ctx, b, c.ID, q, loyalty.TransactionWith{}); err != nil {
		return p, err
	}
	p.Pages = max((p.Ledger.Total+LedgerPageSize-1)/LedgerPageSize, 1)
	all := loyalty.ListQuery{Page: 1, PerPage: 100}
	if p.Coupons, _, err = svc.Offers.AvailableCoupons(ctx, b, c.ID, all); err != nil {
		return p, err
	}
	if p.Offers, _, err = svc.Offers.CustomerOffers(ctx, b, c.ID, all); err != nil {
		return p, err
	}
	if p.Consent, err = svc.Consents.State(ctx, b, c.ID, loyalty.ConsentMarketing); err != nil {
		return p, err
	}
	by, made, err := d.Store.CustomerReferrals(ctx, b.ID, c.ID)
	if err != nil {
		return p, err
	}
	ids := []string{}
	if by != nil {
		ids = append(ids, by.ReferrerID)
	}
	for _, r := range made {
		ids = append(ids, r.RefereeID)
	}
	people, err := d.Store.CustomersByID(ctx, b.ID, ids)
	if err != nil {
		return p, err
	}
	if by != nil {
		if who, ok := people[by.ReferrerID]; ok && !who.Deleted {
			p.Referrer = &who
		}
	}
	for _, r := range made {
		ro := ReferralOf{Referral: r}
		if who, ok := people[r.RefereeID]; ok && !who.Deleted {
			ro.Referee = who
		}
		p.Referrals = append(p.Referrals, ro)
	}
	return p, nil
}

// customerName is how the audit log names a customer.
func customerName(c loyalty.Customer) string {
	return cmpOrString(c.Label(), c.ID)
}

func cmpOrString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// forManager reads the customer a manager's action is on.
func (d *CustomerDesk) forManager(ctx context.Context, a loyalty.Actor, id string) (loyalty.Business, loyalty.Customer, error) {
	if err := a.Require(loyalty.PermManage); err != nil {
		return loyalty.Business{}, loyalty.Customer{}, err
	}
	b, err := d.business(ctx, a)
	if err != nil {
		return loyalty.Business{}, loyalty.Customer{}, err
	}
	c, err := d.on(b).Customers.Get(ctx, b, id)
	return b, c, err
}

// Update changes a customer's details (the API's update rules).
func (d *CustomerDesk) Update(ctx context.Context, a loyalty.Actor, id string, in loyalty.CustomerInput) (loyalty.Customer, error) {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return loyalty.Customer{}, err
	}
	in.Enabled, in.Address, in.Referral = loyalty.Opt[bool]{}, loyalty.Opt[loyalty.AddressInput]{}, loyalty.Opt[loyalty.ReferralInput]{}
	var out loyalty.Customer
	err = loyalty.Audited(a, loyalty.AuditCustomerUpdated, customerName(c), nil, nil, func(r *loyalty.AuditRecord) error {
		var err error
		out, err = d.on(b).AuditedBy(r).Customers.Update(ctx, b, c.ID, in)
		return err
	})
	return out, err
}

// SetEnabled enables or disables a customer: a disabled customer keeps
// the balance and the history.
func (d *CustomerDesk) SetEnabled(ctx context.Context, a loyalty.Actor, id string, enabled bool) error {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return err
	}
	action := loyalty.AuditCustomerDisabled
	if enabled {
		action = loyalty.AuditCustomerEnabled
	}
	return loyalty.Audited(a, action, customerName(c), nil, nil, func(r *loyalty.AuditRecord) error {
		_, err := d.on(b).AuditedBy(r).Customers.Update(ctx, b, c.ID, loyalty.CustomerInput{Enabled: loyalty.Some(enabled)})
		return err
	})
}

// Delete removes a customer from the business; the ledger keeps its
// entries.
func (d *CustomerDesk) Delete(ctx context.Context, a loyalty.Actor, id string) error {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return err
	}
	return loyalty.Audited(a, loyalty.AuditCustomerDeleted, customerName(c), nil, nil, func(r *loyalty.AuditRecord) error {
		return d.on(b).AuditedBy(r).Customers.Delete(ctx, b, c.ID)
	})
}

// ResendWelcome queues the welcome message again, with new tokens to
// confirm the customer's e-mail and phone.
func (d *CustomerDesk) ResendWelcome(ctx context.Context, a loyalty.Actor, id string) error {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return err
	}
	if c.Email == "" && c.Phone == "" {
		return loyalty.Invalid("welcome", "The customer has neither an e-mail address nor a phone number.")
	}
	return loyalty.Audited(a, loyalty.AuditCustomerWelcomed, customerName(c), nil, nil, func(r *loyalty.AuditRecord) error {
		return d.on(b).AuditedBy(r).Customers.Welcome(ctx, b, c.User)
	})
}

// AdjustPoints adds (or, negative, takes away) points with the reason the
// manager gives, kept as the entry's comments.
func (d *CustomerDesk) AdjustPoints(ctx context.Context, a loyalty.Actor, id string, points, reason string) (loyalty.Transaction, error) {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return loyalty.Transaction{}, err
	}
	v := loyalty.Validation{}
	n, perr := strconv.ParseInt(strings.TrimSpace(points), 10, 64)
	if perr != nil || n == 0 {
		v.Add("points", "Enter a whole number of points other than 0; negative takes points away.")
	}
	if strings.TrimSpace(reason) == "" {
		v.Add("reason", "Say why the balance changes: the customer and your team see it in the history.")
	}
	if err := v.Err(); err != nil {
		return loyalty.Transaction{}, err
	}
	in := loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentAdjust), Points: loyalty.Some(n), Comments: loyalty.Some(reason),
		Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})}
	var t loyalty.Transaction
	err = loyalty.Audited(a, loyalty.AuditPointsAdjusted, customerName(c), nil, map[string]string{"points": strconv.FormatInt(n, 10), "reason": reason},
		func(r *loyalty.AuditRecord) error {
			var err error
			t, _, err = d.on(b).AuditedBy(r).Transactions.Create(ctx, b, in, nil)
			return fieldsAs(err, map[string]string{"comments": "reason"})
		})
	return t, err
}

// Cancel cancels one of the customer's ledger entries by writing its
// reversing entry.
func (d *CustomerDesk) Cancel(ctx context.Context, a loyalty.Actor, id string, txID int64) (loyalty.Transaction, error) {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return loyalty.Transaction{}, err
	}
	var t loyalty.Transaction
	err = loyalty.Audited(a, loyalty.AuditTransactionCancel, customerName(c), nil, map[string]string{"transaction": strconv.FormatInt(txID, 10)},
		func(r *loyalty.AuditRecord) error {
			var err error
			t, err = d.on(b).AuditedBy(r).Transactions.CancelOf(ctx, b, c.ID, txID)
			return err
		})
	return t, err
}

// CouponCost is what issuing a coupon of an offer would take: the offer
// (its points are taken from the customer's balance) and the customer as
// they stand.
type CouponCost struct {
	Customer loyalty.Customer
	Offer    loyalty.Offer
}

// CouponCost reads what issuing the customer a coupon of the offer would
// cost, writing nothing: the console asks before it takes points.
func (d *CustomerDesk) CouponCost(ctx context.Context, a loyalty.Actor, id string, offerID int64) (CouponCost, error) {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return CouponCost{}, err
	}
	o, err := d.on(b).Offers.Get(ctx, b, strconv.FormatInt(offerID, 10))
	return CouponCost{Customer: c, Offer: o}, err
}

// IssueCoupon gives the customer a coupon of a coupon offer (get_coupon).
func (d *CustomerDesk) IssueCoupon(ctx context.Context, a loyalty.Actor, id string, offerID int64) (loyalty.Transaction, error) {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return loyalty.Transaction{}, err
	}
	in := loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentGetCoupon), Offer: loyalty.Some(loyalty.IntRef{ID: loyalty.Some(offerID)}),
		Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(c.ID)})}
	var t loyalty.Transaction
	err = loyalty.Audited(a, loyalty.AuditCouponIssued, customerName(c), nil, map[string]string{"offer": strconv.FormatInt(offerID, 10)},
		func(r *loyalty.AuditRecord) error {
			var err error
			t, _, err = d.on(b).AuditedBy(r).Transactions.Create(ctx, b, in, nil)
			return fieldsAs(err, map[string]string{"offer.id": "offer"})
		})
	return t, err
}

// GiftCoupon gives the customer a coupon of a coupon offer without taking
// its points, for the reason the manager gives (required), kept in the
// audit log and as the entry's comments.
func (d *CustomerDesk) GiftCoupon(ctx context.Context, a loyalty.Actor, id string, offerID int64, reason string) (loyalty.Transaction, error) {
	b, c, err := d.forManager(ctx, a, id)
	if err != nil {
		return loyalty.Transaction{}, err
	}
	var t loyalty.Transaction
	err = loyalty.Audited(a, loyalty.AuditCouponGifted, customerName(c), nil,
		map[string]string{"offer": strconv.FormatInt(offerID, 10), "reason": strings.TrimSpace(reason)},
		func(r *loyalty.AuditRecord) error {
			var err error
			t, err = d.on(b).AuditedBy(r).Transactions.GiftCoupon(ctx, b, c.ID, offerID, reason)
			return fieldsAs(err, map[string]string{"offer.id": "offer", "reason": "gift_reason"})
		})
	return t, err
}

// fieldsAs renames the fields of a validation error to the form's names.
func fieldsAs(err error, names map[string]string) error { return loyalty.RenameFields(err, names) }
