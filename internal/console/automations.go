package console

import (
	"context"
	"strconv"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Automations are the console's side of a business's automations: the
// list, each read as a sentence with how often it ran, turning one on or
// off, the form's choices, saving and deleting. Marketing, as campaigns:
// the owner's and the managers'. When an automation fires and what it
// does are the domain's (AutomationService, AutomationRunner).

// AutomationRow is an automation as the list shows it.
type AutomationRow struct {
	loyalty.Automation
	Sentence string         // Automation.DescribeNamed
	Segment  string         // "" for every member, or when the segment was deleted
	Runs     map[string]int // by state: waiting, done, failed, baseline
}

// AutomationChoices are what an automation's form chooses among: the
// segments, the enabled tier program's levels, the punch cards and the
// offers whose coupons may be given.
type AutomationChoices struct {
	Segments []SegmentRow
	Levels   []loyalty.TierLevel
	Cards    []loyalty.PunchCard
	Offers   []loyalty.Offer
}

// MaxAutomationsListed bounds the automations the list shows, each with
// its runs counted.
const MaxAutomationsListed = 100

// Automations lists the business's automations, oldest first, and how
// many there are.
func (d *MarketingDesk) Automations(ctx context.Context, a loyalty.Actor) ([]AutomationRow, int, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return nil, 0, err
	}
	list, total, err := svc.Automations.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: MaxAutomationsListed})
	if err != nil {
		return nil, 0, err
	}
	names, err := d.automationNames(ctx, b, svc)
	if err != nil {
		return nil, 0, err
	}
	segs, err := d.segmentNames(ctx, b, svc)
	if err != nil {
		return nil, 0, err
	}
	out := make([]AutomationRow, len(list))
	for i, au := range list {
		out[i] = AutomationRow{Automation: au, Sentence: au.DescribeNamed(names), Segment: segs[au.SegmentID]}
		if out[i].Runs, err = svc.Automations.Runs(ctx, au); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// automationNames names the levels, punch cards and offers of the
// business for the automations' sentences.
func (d *MarketingDesk) automationNames(ctx context.Context, b loyalty.Business, svc loyalty.Services) (loyalty.AutomationNames, error) {
	out := loyalty.AutomationNames{Levels: map[int64]string{}, Cards: map[int64]string{}, Offers: map[int64]string{}}
	tiers, err := svc.Tiers.List(ctx, b)
	if err != nil {
		return out, err
	}
	for _, t := range tiers {
		for _, l := range t.Levels {
			out.Levels[l.ID] = l.Name
		}
	}
	all := loyalty.ListQuery{Page: 1, PerPage: 100}
	cards, _, err := svc.PunchCards.List(ctx, b, all)
	if err != nil {
		return out, err
	}
	for _, c := range cards {
		out.Cards[c.ID] = c.Name
	}
	offers, _, err := svc.Offers.List(ctx, b, all)
	for _, o := range offers {
		out.Offers[o.ID] = o.Title
	}
	return out, err
}

// Automation returns one automation of the business.
func (d *MarketingDesk) Automation(ctx context.Context, a loyalty.Actor, id string) (loyalty.Automation, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return loyalty.Automation{}, err
	}
	return svc.Automations.Get(ctx, b, id)
}

// AutomationChoices reads what an automation's form chooses among.
func (d *MarketingDesk) AutomationChoices(ctx context.Context, a loyalty.Actor) (AutomationChoices, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return AutomationChoices{}, err
	}
	c, err := d.CampaignChoices(ctx, a)
	if err != nil {
		return AutomationChoices{}, err
	}
	out := AutomationChoices{Segments: c.Segments, Offers: c.Offers}
	tiers, err := svc.Tiers.List(ctx, b)
	if err != nil {
		return out, err
	}
	if t, ok := loyalty.EnabledTier(tiers); ok {
		out.Levels = t.Levels
	}
	cards, _, err := svc.PunchCards.List(ctx, b, loyalty.ListQuery{Page: 1, PerPage: 100})
	for _, card := range cards {
		if !card.Deleted {
			out.Cards = append(out.Cards, card)
		}
	}
	return out, err
}

// SaveAutomation creates an automation (id "") or changes one, audited
// as the program's change it is through the API.
func (d *MarketingDesk) SaveAutomation(ctx context.Context, a loyalty.Actor, id string, in loyalty.AutomationInput) (loyalty.Automation, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return loyalty.Automation{}, err
	}
	action := loyalty.AuditProgramUpdated
	if id == "" {
		action = loyalty.AuditProgramCreated
	}
	name, ok := in.Name.Value()
	if !ok && id != "" {
		au, err := svc.Automations.Get(ctx, b, id)
		if err != nil {
			return au, err
		}
		name = au.Name
	}
	var out loyalty.Automation
	var before, after map[string]string
	if on, ok := in.Enabled.Value(); ok && !in.Trigger.Set {
		// Turned on or off: the log says which.
		before, after = map[string]string{"enabled": strconv.FormatBool(!on)}, map[string]string{"enabled": strconv.FormatBool(on)}
	}
	err = loyalty.Audited(a, action, "Automation: "+name, before, after, func(r *loyalty.AuditRecord) error {
		var err error
		out, err = svc.AuditedBy(r).Automations.Save(ctx, b, id, in)
		return err
	})
	return out, err
}

// EnableAutomation turns an automation on or off.
func (d *MarketingDesk) EnableAutomation(ctx context.Context, a loyalty.Actor, id string, on bool) (loyalty.Automation, error) {
	return d.SaveAutomation(ctx, a, id, loyalty.AutomationInput{Enabled: loyalty.Some(on)})
}

// DeleteAutomation deletes an automation; its waiting steps are not done.
func (d *MarketingDesk) DeleteAutomation(ctx context.Context, a loyalty.Actor, id string) error {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return err
	}
	au, err := svc.Automations.Get(ctx, b, id)
	if err != nil {
		return err
	}
	return loyalty.Audited(a, loyalty.AuditProgramDeleted, "Automation: "+au.Name, nil, nil, func(r *loyalty.AuditRecord) error {
		return svc.AuditedBy(r).Automations.Delete(ctx, b, id)
	})
}

// AutomationSentence reads an automation as a sentence naming the
// levels, punch cards and offers it refers to.
func (d *MarketingDesk) AutomationSentence(ctx context.Context, a loyalty.Actor, au loyalty.Automation) (string, error) {
	b, svc, err := d.forMarketing(ctx, a)
	if err != nil {
		return "", err
	}
	names, err := d.automationNames(ctx, b, svc)
	return au.DescribeNamed(names), err
}
