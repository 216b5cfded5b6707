package console

import (
	"context"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The program desk is the console's side of the program's setup: earning
// rules, offers, the rewards catalogue, gift cards, tiers, referral
// programs and branches. Each change is the owner's or a manager's, runs
// through the service the API uses (its validation, its messages) and is
// written to the audit log in its own transaction.

// ProgramDesk changes a business's program for the console.
type ProgramDesk struct {
	Services loyalty.Services
	Store    loyalty.Store
}

// Business returns the actor's business to an actor allowed to set the
// program up.
func (d *ProgramDesk) Business(ctx context.Context, a loyalty.Actor) (loyalty.Business, error) {
	if err := a.Require(loyalty.PermManage); err != nil {
		return loyalty.Business{}, err
	}
	return d.Store.Business(ctx, a.BusinessID)
}

// change runs fn for the actor's business, audited as action on target.
func (d *ProgramDesk) change(ctx context.Context, a loyalty.Actor, action, target string, fn func(context.Context, loyalty.Business, loyalty.Services) error) error {
	b, err := d.Business(ctx, a)
	if err != nil {
		return err
	}
	// What staff change is dated by the business's clock, as through the
	// API: a sandbox business's may run ahead of the real one.
	svc := d.Services.ClockedBy(b.ClockOffset)
	return loyalty.Audited(a, action, target, nil, nil, func(r *loyalty.AuditRecord) error { return fn(ctx, b, svc.AuditedBy(r)) })
}

// SaveRules changes the earning rules; the log keeps each changed rule
// before and after.
func (d *ProgramDesk) SaveRules(ctx context.Context, a loyalty.Actor, in loyalty.RulesInput) (loyalty.Rules, error) {
	var out loyalty.Rules
	err := d.change(ctx, a, loyalty.AuditRulesUpdated, "Earning rules", func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		out, err = svc.Transactions.UpdateRules(ctx, b, in)
		return err
	})
	return out, err
}

// catalog is a service that creates and updates one kind of the program
// (offers, rewards, gift cards, referral programs, tiers, branches), an
// entry of it named by an id of type K, given an input of type I.
type catalog[K comparable, I, T any] interface {
	Create(ctx context.Context, b loyalty.Business, in I) (T, error)
	Update(ctx context.Context, b loyalty.Business, id K, in I) (T, error)
}

// save creates an entry of the catalog that kind picks out of the
// services (id the zero K) or updates the one of id, audited as the
// program created or updated, with target naming the entry.
func save[S catalog[K, I, T], K comparable, I, T any](ctx context.Context, d *ProgramDesk, a loyalty.Actor, kind func(loyalty.Services) S,
	id K, target string, in I) error {
	var none K
	action := loyalty.AuditProgramUpdated
	if id == none {
		action = loyalty.AuditProgramCreated
	}
	return d.change(ctx, a, action, target, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		if id == none {
			_, err = kind(svc).Create(ctx, b, in)
		} else {
			_, err = kind(svc).Update(ctx, b, id, in)
		}
		return err
	})
}

// SaveOffer creates an offer (id "") or updates one.
func (d *ProgramDesk) SaveOffer(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.OfferInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.OfferService { return s.Offers }, id, "Offer: "+name, in)
}

// SaveReward creates a reward of the catalogue (id "") or updates one.
func (d *ProgramDesk) SaveReward(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.RewardInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.RewardService { return s.Rewards }, id, "Reward: "+name, in)
}

// SaveGiftcard creates a gift card of the catalogue (id "") or updates one.
func (d *ProgramDesk) SaveGiftcard(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.GiftcardInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.GiftcardService { return s.Giftcards }, id, "Gift card: "+name, in)
}

// SaveReferralProgram creates a referral program (id 0) or updates one.
func (d *ProgramDesk) SaveReferralProgram(ctx context.Context, a loyalty.Actor, id int64, name string, in loyalty.ReferralProgramInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.ReferralProgramService { return s.ReferralPrograms }, id,
		"Referral program: "+name, in)
}

// SaveTier creates a tier program (id 0) or updates one.
func (d *ProgramDesk) SaveTier(ctx context.Context, a loyalty.Actor, id int64, name string, in loyalty.TierInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.TierService { return s.Tiers }, id, "Tier program: "+name, in)
}

// SaveBranch creates a branch (id "") or updates one.
func (d *ProgramDesk) SaveBranch(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.BranchInput) error {
	return save(ctx, d, a, func(s loyalty.Services) *loyalty.BranchService { return s.Branches }, id, "Branch: "+name, in)
}
