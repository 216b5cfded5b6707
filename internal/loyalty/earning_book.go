package loyalty

import (
	"cmp"
	"slices"
)

// ruleBook is a business's earning rules compiled for the engine: in the
// order the engine walks them (priority, highest first, then oldest
// first), with what explaining each takes made once. A business's state
// keeps its book (BusinessState.SetEarningRules) as long as it keeps its
// rules, so a sale neither sorts them nor builds their phrases again. A
// book is never changed once made: the requests of a business share it.
type ruleBook struct {
	rules []bookRule
	// split is where the rules of negative priority start: the program's
	// points and the offers stand before them.
	split int
}

// bookRule is one rule of a book.
type bookRule struct {
	rule *EarningRule
	ref  string // its reference in an evaluation: "rule-5"
	// gave is why it applied, for the effects whose phrase is the rule's
	// own (not a coupon's or a card's, whose names are read with a sale);
	// below is why a sale under its minimum amount does not apply.
	gave, below string
}

// compileRules makes the book of the rules list holds.
func compileRules(list []EarningRule) *ruleBook {
	sorted := slices.Clone(list)
	slices.SortStableFunc(sorted, func(a, b EarningRule) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.ID, b.ID))
	})
	book := &ruleBook{rules: make([]bookRule, len(sorted)), split: len(sorted)}
	for i := range sorted {
		r := &sorted[i]
		if r.Priority < 0 && book.split == len(sorted) {
			book.split = i
		}
		br := bookRule{rule: r, ref: "rule-" + itoa64(r.ID), gave: effectPhrase(r.Effect)}
		if br.gave != "" && (len(r.Conditions.Products) > 0 || len(r.Conditions.Categories) > 0) {
			br.gave += " of its products and categories"
		}
		br.below = "the amount is below its minimum of " + r.Conditions.MinAmount.String()
		book.rules[i] = br
	}
	return book
}

// candidate is the rule as an evaluation starts it.
func (br *bookRule) candidate() candidate {
	return candidate{kind: kindRule, rule: br.rule, book: br, effect: br.rule.Effect}
}

// effectPhrase says what an effect gives, for the effects that give
// points ("" for a coupon or stamps, which name their offer or card).
func effectPhrase(f RuleEffect) string {
	switch f.Type {
	case EffectPointsPerAmount:
		return pointsPhrase(f.Points) + " for each " + f.PerAmount.String()
	case EffectPointsPerItem:
		return pointsPhrase(f.Points) + " for each item"
	case EffectMultiplier:
		return "multiplies the earning rules' points by " + f.Factor.String()
	case EffectBonus:
		return "bonus points"
	}
	return ""
}

// SetEarningRules keeps every earning rule of the business (not deleted)
// with its state, and their book: a reward and an evaluation then read
// neither the rules nor their order again.
func (st *BusinessState) SetEarningRules(list []EarningRule) {
	st.EarningRules, st.EarningRead, st.book = list, true, compileRules(list)
}
