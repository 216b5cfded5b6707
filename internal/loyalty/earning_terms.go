package loyalty

import "slices"

// Whether a rule applies to a sale by its own terms, and how an
// evaluation explains each rule: what it gave, or why it did not apply.

// applies decides whether a candidate applies to the sale by its own
// terms, setting its qualifying lines; explaining, it says why not.
func (p *program) applies(s *sale, c *candidate, explain bool) (bool, string) {
	switch c.kind {
	case kindEarning:
		return true, ""
	case kindOffer:
		if !c.offer.AppliesTo(s.amount) {
			return false, skipReasons[SkipRange]
		}
		if c.effect.Type == EffectMultiplier && c.effect.Factor <= 100 {
			return false, skipReasons[SkipOutranked]
		}
		return true, ""
	}
	r := c.rule
	cond := r.Conditions
	switch {
	case !r.Enabled:
		return false, "disabled"
	case !r.Active(s.at):
		return false, "not active at this time (not started or ended)"
	case !s.inSchedule(r.Schedule):
		return false, "outside its schedule"
	case len(cond.Branches) > 0 && !slices.Contains(cond.Branches, s.branch):
		return false, "not at this branch"
	case len(cond.Channels) > 0 && !slices.Contains(cond.Channels, s.channel):
		return false, "not on this channel"
	case s.amount < cond.MinAmount:
		return false, c.book.below
	case cond.onCustomer() && p.customer == "":
		return false, "the sale names no customer"
	case cond.FirstPurchase && p.facts.Purchased:
		return false, "not the customer's first purchase"
	case cond.BirthdayWithinDays != nil && p.facts.BirthDate == "":
		return false, "the customer's birthday is not known"
	case cond.BirthdayWithinDays != nil && !birthdayWithin(p.facts.BirthDate, s.at, s.loc, *cond.BirthdayWithinDays):
		if !explain {
			return false, ""
		}
		return false, "not within " + itoa(*cond.BirthdayWithinDays) + " days of the customer's birthday"
	case len(cond.TierLevels) > 0 && !slices.Contains(cond.TierLevels, p.facts.TierLevel):
		return false, "the customer holds none of its tier levels"
	case cond.CampaignID != 0 && !reachedWithin(p.facts.Reached[cond.CampaignID], s.at, cond.CampaignDays):
		if !explain {
			return false, ""
		}
		if reached := p.facts.Reached[cond.CampaignID]; !reached.IsZero() {
			return false, "not within " + plural(int64(cond.CampaignDays), "day") + " of its campaign reaching the customer"
		}
		return false, "the customer is not one its campaign reached"
	case slices.Contains(p.lost, r.ID):
		return false, "its limit was reached by another reward meanwhile"
	case r.Limits.PerCustomer != nil && p.customer != "" && p.usage.Uses[r.ID] >= r.Limits.PerCustomer.Count:
		if !explain {
			return false, ""
		}
		l := r.Limits.PerCustomer
		return false, "the customer has had it " + itoa64(l.Count) + " times " + periodPhrase(l.Period)
	case c.effect.gift() && p.customer == "":
		return false, "the sale names no customer"
	case c.effect.Type == EffectCoupon && !p.giftOffers[c.effect.OfferID].Active(s.at):
		return false, "its coupon offer is not active (disabled, deleted, not started or ended)"
	case c.effect.Type == EffectStamp && p.card(c.effect.PunchCardID).ID == 0:
		return false, "its punch card is disabled or deleted"
	}
	needsItems := len(cond.Products) > 0 || len(cond.Categories) > 0 || cond.MinQuantity > 0 || c.effect.Type == EffectPointsPerItem
	if !needsItems {
		return true, ""
	}
	if !s.items {
		return false, "the sale names no items"
	}
	if len(cond.Products) > 0 || len(cond.Categories) > 0 {
		c.mask = s.flags()
		any := false
		for j, l := range s.lines {
			if l.product != 0 && slices.Contains(cond.Products, l.product) || l.category != 0 && slices.Contains(cond.Categories, l.category) {
				c.mask[j], any = true, true
			}
		}
		if !any {
			return false, "no item of its products or categories"
		}
	}
	if cond.MinQuantity > 0 {
		var units int64
		for j, l := range s.lines {
			if c.covers(j) {
				units += l.units
			}
		}
		if units < cond.MinQuantity {
			if !explain {
				return false, ""
			}
			return false, "fewer than " + itoa64(cond.MinQuantity) + " qualifying items"
		}
	}
	return true, ""
}

// outcome is the candidate as an evaluation lists it.
func (p *program) outcome(c *candidate) Outcome {
	rules := p.rules
	o := Outcome{Points: c.points, Reason: c.why}
	switch c.kind {
	case kindEarning:
		o.RuleID, o.Name = RuleEarning, "Earning rules"
		o.Reason = pointsPhrase(rules.RewardRatio) + " for each " + rules.RewardMilestoneAmount.String()
		if c.why != "" {
			o.Reason = c.why
		} else if c.points == 0 {
			o.Reason = "the amount earns no points at " + o.Reason
		}
		return o
	case kindOffer:
		o.RuleID, o.Name = offerRuleID(*c.offer), c.offer.Title
	default:
		o.RuleID, o.Name = c.book.ref, c.rule.Name
	}
	if !c.applied {
		return o
	}
	switch f := c.effect; {
	case c.book != nil && c.book.gave != "":
		o.Reason = c.book.gave
	case f.Type == EffectCoupon:
		o.Reason = "issues a coupon of " + quote(p.giftOffers[f.OfferID].Title)
	case f.Type == EffectStamp:
		o.Reason = "gives " + plural(f.Stamps, "stamp") + " on " + quote(p.card(f.PunchCardID).Name)
	default:
		o.Reason = effectPhrase(f)
	}
	return o
}

// quote puts a name in quotation marks.
func quote(s string) string { return "“" + s + "”" }

// periodPhrase says a limit's period in words.
func periodPhrase(p string) string {
	if p == PeriodLifetime {
		return "in all"
	}
	return "this " + p
}

// pointsPhrase is "1 point" or "n points".
func pointsPhrase(n int64) string { return plural(n, "point") }

// plural is n and the noun, in the plural unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa64(n) + " " + noun + "s"
}
