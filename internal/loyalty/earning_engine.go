package loyalty

import (
	"slices"
	"sync"
)

// The earning engine decides what a sale earns, from one ordered list of
// rules: the business's earning rules (/earning-rules), its program's
// points per amount (Rules: reward_ratio for each reward_milestone_amount,
// "earning") and the multiplier and bonus offers that apply to the sale
// (ApplicableOffers, "offer-12"). Custom rules are "rule-5".
//
// Order: the earning rules of priority 0 and more, highest first (then
// oldest first), then the program's points, then the offers (as the
// business lists them), then the earning rules of negative priority. Each
// rule in turn applies or not by its dates, schedule and conditions; once
// an exclusive rule applies, none after it does.
//
// Points: every points_per_amount and points_per_item rule that applies
// earns on its qualifying lines (all the sale's lines, or those of its
// products and categories). Multipliers do not stack: each line goes to
// the best multiplier that covers it (the highest factor; the earlier in
// the order on a tie), which adds (factor − 1) × the points per amount and
// per item earned on its lines, each rule's share counted on those lines
// and rounded down; a multiplier left with no line is outranked. Each
// bonus adds its points. A sale without items is one line of its amount:
// a rule that needs items (product, category or quantity conditions,
// points per item) does not apply to it.

// Rule kinds of the engine.
const (
	kindRule = iota
	kindEarning
	kindOffer
)

// RuleEarning is the reference of the program's points per amount in an
// evaluation's lists.
const RuleEarning = "earning"

// candidate is one rule in an evaluation.
type candidate struct {
	kind    int
	rule    *EarningRule
	book    *bookRule // the rule's entry in its book (kindRule)
	offer   *Offer
	effect  RuleEffect
	mask    []bool // the qualifying lines; nil: every line
	applied bool
	points  int64
	why     string // why it did not apply (explaining only)
	lines   []bool // a multiplier's lines, the ones it is best on
}

// Outcome is one rule of an evaluation: its reference (RuleEarning,
// "offer-12", "rule-5"), name, the points it gave and why it applied, or
// why it did not.
type Outcome struct {
	RuleID string
	Name   string
	Points int64
	Reason string
}

// Earning is what the engine decided for a sale: the points, the offer
// that names the entry (the multiplier offer that applied, else the
// first bonus offer), the offers that applied and, of those, the limited
// ones whose use the points count, the outcomes of the rules that applied
// and, when explaining, those of the rules that did not.
type Earning struct {
	Points  int64
	OfferID int64
	Offers  []Offer    // the offers that applied, in order
	Limited []Offer    // of those, the limited ones
	Takes   []RuleTake // the limited earning rules that apply
	// Stamps are the stamps the sale gives its customer's punch cards:
	// its qualifying purchases' and its stamp rules'.
	Stamps []CardStamps
	// Coupons are the coupons its coupon rules issue.
	Coupons []RuleCoupon
	// LinePoints are, for a basket, the points each of its lines earned
	// (attribute); what tax and shipping earned is on no line.
	LinePoints []int64
	Applied    []Outcome
	NotApplied []Outcome
}

// program is what a sale's points are decided by.
type program struct {
	rules    Rules
	earning  []EarningRule // every live earning rule of the business
	book     *ruleBook     // earning compiled, when the business's state holds it (else made by evaluate)
	offers   []Offer       // the points offers that apply (ApplicableOffers)
	customer string        // the sale's customer ("" for a dry run without one)
	usage    RuleUsage     // what the limited rules have used, read before
	facts    CustomerFacts // the customer's, when a rule asks
	lost     []int64       // rules whose limit another reward took meanwhile
	// cards are the live punch cards (stamped by qualifying purchases and
	// by stamp rules), giftOffers the offers coupon rules name.
	cards      []PunchCard
	giftOffers map[int64]Offer
}

// RuleCoupon is a coupon a coupon rule issues with a sale.
type RuleCoupon struct {
	RuleID int64
	Offer  Offer
}

// RuleUsage is what the limited earning rules of a sale have used in the
// periods that hold it: the customer's uses of each rule, and the points
// each rule's budget has given.
type RuleUsage struct {
	Uses  map[int64]int64
	Spent map[int64]int64
}

// RulePeriod names one rule's counter in one period ("" for its whole life).
type RulePeriod struct {
	RuleID int64
	Period string
}

// RuleTake is a limited rule a sale's points count, and the points it
// gave: its use and its points are recorded with the reward.
type RuleTake struct {
	Rule   EarningRule
	Points int64
}

// evaluate runs the engine over s. With explain it fills the outcomes.
func (p *program) evaluate(s *sale, explain bool) Earning {
	book := p.book
	if book == nil {
		book = compileRules(p.earning)
	}
	held := candidates.Get().(*[]candidate)
	cands := slices.Grow((*held)[:0], len(book.rules)+1+len(p.offers))
	defer func() {
		clear(cands) // nothing of this sale stays reachable from the pool
		*held = cands[:0]
		candidates.Put(held)
	}()
	for i := range book.rules[:book.split] {
		cands = append(cands, book.rules[i].candidate())
	}
	cands = append(cands, candidate{kind: kindEarning, effect: RuleEffect{Type: EffectPointsPerAmount,
		Points: p.rules.RewardRatio, PerAmount: p.rules.RewardMilestoneAmount, RoundUp: p.rules.RoundUpPoints}})
	for i := range p.offers {
		o := &p.offers[i]
		f := RuleEffect{Type: EffectBonus, Points: o.Points}
		if o.TypeID == OfferPointsMultiplier {
			f = RuleEffect{Type: EffectMultiplier, Factor: o.MultipFactor}
		}
		cands = append(cands, candidate{kind: kindOffer, offer: o, effect: f})
	}
	for i := book.split; i < len(book.rules); i++ {
		cands = append(cands, book.rules[i].candidate())
	}

	var stopper *candidate
	for i := range cands {
		c := &cands[i]
		if stopper != nil {
			if explain {
				c.why = "left out: the exclusive rule " + quote(stopper.rule.Name) + " applied"
			}
			continue
		}
		c.applied, c.why = p.applies(s, c, explain)
		if c.applied && c.kind == kindRule && c.rule.Exclusive {
			stopper = c
		}
	}

	// Points per amount and per item, then the multipliers over them,
	// then the bonuses; a rule whose budget its points would pass does
	// not apply.
	for i := range cands {
		c := &cands[i]
		if c.applied && c.effect.base() {
			c.points = c.earnedOn(s, nil)
			p.checkBudget(c, explain)
		}
	}
	p.multiply(s, cands, explain)
	for i := range cands {
		c := &cands[i]
		if c.applied && c.effect.Type == EffectBonus {
			c.points = c.effect.Points
			p.checkBudget(c, explain)
		}
	}
	out := Earning{}
	var firstBonus int64
	for i := range cands {
		c := &cands[i]
		if c.applied {
			out.Points += c.points
			if c.kind == kindOffer {
				out.Offers = append(out.Offers, *c.offer)
				if c.offer.Limited() {
					out.Limited = append(out.Limited, *c.offer)
				}
				if c.effect.Type == EffectMultiplier && out.OfferID == 0 {
					out.OfferID = c.offer.ID
				}
				if c.effect.Type == EffectBonus && firstBonus == 0 {
					firstBonus = c.offer.ID
				}
			}
			if c.kind == kindRule && c.rule.limited() {
				out.Takes = append(out.Takes, RuleTake{Rule: *c.rule, Points: c.points})
			}
			switch c.effect.Type {
			case EffectCoupon:
				out.Coupons = append(out.Coupons, RuleCoupon{RuleID: c.rule.ID, Offer: p.giftOffers[c.effect.OfferID]})
			case EffectStamp:
				out.Stamps = addStamps(out.Stamps, p.card(c.effect.PunchCardID), c.effect.Stamps)
			}
		}
	}
	if out.OfferID == 0 {
		out.OfferID = firstBonus
	}
	for _, cs := range stampsOf(s, p.customer, p.cards) {
		out.Stamps = addStamps(out.Stamps, cs.Card, cs.Stamps)
	}
	if s.items {
		out.LinePoints = attribute(s, cands)
	}
	// The rules that applied are on every reward's reply; why the others
	// did not, only when explaining.
	listed := func(c *candidate) bool { return c.applied && !(c.kind == kindEarning && c.points == 0) }
	n := 0
	for i := range cands {
		if listed(&cands[i]) {
			n++
		}
	}
	out.Applied = make([]Outcome, 0, n)
	if explain {
		out.NotApplied = make([]Outcome, 0, len(cands)-n)
	}
	for i := range cands {
		c := &cands[i]
		if listed(c) {
			out.Applied = append(out.Applied, p.outcome(c))
		} else if explain {
			out.NotApplied = append(out.NotApplied, p.outcome(c))
		}
	}
	return out
}

// candidates keeps evaluate's candidates between sales: for a business
// with 50 rules they were 10 KB of every reward's garbage, the engine's
// most.
var candidates = sync.Pool{New: func() any { return new([]candidate) }}

// covers reports whether the candidate's qualifying lines hold line j.
func (c *candidate) covers(j int) bool { return c.mask == nil || c.mask[j] }

// earnedOn is what a points per amount or per item rule earns on its
// qualifying lines, only those of on when on is not nil.
func (c *candidate) earnedOn(s *sale, on []bool) int64 {
	var amount Money
	var units int64
	for j, l := range s.lines {
		if c.covers(j) && (on == nil || on[j]) {
			amount += l.total
			units += l.units
		}
	}
	if c.effect.Type == EffectPointsPerItem {
		return units * c.effect.Points
	}
	return pointsPerAmount(amount, c.effect.Points, c.effect.PerAmount, c.effect.RoundUp)
}

// pointsPerAmount is floor(amount / per) × points or, rounding up, the
// exact share amount × points / per rounded up.
func pointsPerAmount(amount Money, points int64, per Money, roundUp bool) int64 {
	if amount <= 0 || per <= 0 || points <= 0 {
		return 0
	}
	a, m := int64(amount), int64(per)
	if roundUp {
		return (a*points + m - 1) / m
	}
	return (a / m) * points
}

// card returns the live, enabled punch card id names (zero when none).
func (p *program) card(id int64) PunchCard {
	for _, c := range p.cards {
		if c.ID == id && c.Enabled && !c.Deleted {
			return c
		}
	}
	return PunchCard{}
}

// addStamps adds n stamps on card to a sale's stamps.
func addStamps(all []CardStamps, card PunchCard, n int64) []CardStamps {
	for i := range all {
		if all[i].Card.ID == card.ID {
			all[i].Stamps += n
			return all
		}
	}
	return append(all, CardStamps{Card: card, Stamps: n})
}
