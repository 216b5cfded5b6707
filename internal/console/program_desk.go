package console

import (
	"context"
	"strconv"

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

// saveAction is the audit action of a create (id empty) or an update.
func saveAction(id string) string {
	if id == "" {
		return loyalty.AuditProgramCreated
	}
	return loyalty.AuditProgramUpdated
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

// SaveOffer creates an offer (id "") or updates one.
func (d *ProgramDesk) SaveOffer(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.OfferInput) error {
	return d.change(ctx, a, saveAction(id), "Offer: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		if id == "" {
			_, err = svc.Offers.Create(ctx, b, in)
		} else {
			_, err = svc.Offers.Update(ctx, b, id, in)
		}
		return err
	})
}

// SaveReward creates a reward of the catalogue (id "") or updates one.
func (d *ProgramDesk) SaveReward(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.RewardInput) error {
	return d.change(ctx, a, saveAction(id), "Reward: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		if id == "" {
			_, err = svc.Rewards.Create(ctx, b, in)
		} else {
			_, err = svc.Rewards.Update(ctx, b, id, in)
		}
		return err
	})
}

// SaveGiftcard creates a gift card of the catalogue (id "") or updates one.
func (d *ProgramDesk) SaveGiftcard(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.GiftcardInput) error {
	return d.change(ctx, a, saveAction(id), "Gift card: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		if id == "" {
			_, err = svc.Giftcards.Create(ctx, b, in)
		} else {
			_, err = svc.Giftcards.Update(ctx, b, id, in)
		}
		return err
	})
}

// SaveReferralProgram creates a referral program (id 0) or updates one.
func (d *ProgramDesk) SaveReferralProgram(ctx context.Context, a loyalty.Actor, id int64, name string, in loyalty.ReferralProgramInput) error {
	return d.change(ctx, a, saveAction(idText(id)), "Referral program: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		if id == 0 {
			_, err = svc.ReferralPrograms.Create(ctx, b, in)
		} else {
			_, err = svc.ReferralPrograms.Update(ctx, b, id, in)
		}
		return err
	})
}

// SaveTier creates a tier program (id 0) or updates one.
func (d *ProgramDesk) SaveTier(ctx context.Context, a loyalty.Actor, id int64, name string, in loyalty.TierInput) error {
	return d.change(ctx, a, saveAction(idText(id)), "Tier program: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		if id == 0 {
			_, err = svc.Tiers.Create(ctx, b, in)
		} else {
			_, err = svc.Tiers.Update(ctx, b, id, in)
		}
		return err
	})
}

// SaveBranch creates a branch (id "") or updates one.
func (d *ProgramDesk) SaveBranch(ctx context.Context, a loyalty.Actor, id, name string, in loyalty.BranchInput) error {
	return d.change(ctx, a, saveAction(id), "Branch: "+name, func(ctx context.Context, b loyalty.Business, svc loyalty.Services) error {
		var err error
		if id == "" {
			_, err = svc.Branches.Create(ctx, b, in)
		} else {
			_, err = svc.Branches.Update(ctx, b, id, in)
		}
		return err
	})
}

// idText is an integer id as a path names it, "" for none.
func idText(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}
