package loyalty

// Multipliers over a sale's lines, and budgets that a rule's points
// would pass.

// multiply gives each line to the best multiplier covering it (the
// highest factor, the earlier on a tie) and counts what each adds over
// the points per amount and per item on its lines. A multiplier whose
// budget its points would pass does not apply, and its lines go to the
// next best.
func (p *program) multiply(s *sale, cands []candidate, explain bool) {
	for {
		best := []int(nil)
		for i := range cands {
			c := &cands[i]
			if !c.applied || c.effect.Type != EffectMultiplier {
				continue
			}
			if best == nil {
				best = make([]int, len(s.lines))
				for j := range best {
					best[j] = -1
				}
			}
			for j := range s.lines {
				if c.covers(j) && (best[j] < 0 || c.effect.Factor > cands[best[j]].effect.Factor) {
					best[j] = i
				}
			}
		}
		if best == nil {
			return
		}
		again := false
		for i := range cands {
			c := &cands[i]
			if !c.applied || c.effect.Type != EffectMultiplier {
				continue
			}
			c.lines, c.points = s.flags(), 0
			any := false
			for j := range best {
				if best[j] == i {
					c.lines[j], any = true, true
				}
			}
			if !any {
				c.applied = false
				c.why = "a better multiplier applies"
				continue
			}
			for b := range cands {
				if base := &cands[b]; base.applied && base.effect.base() {
					on := base.earnedOn(s, c.lines)
					c.points += on*int64(c.effect.Factor)/100 - on
				}
			}
			if p.checkBudget(c, explain); !c.applied {
				again = true
			}
		}
		if !again {
			return
		}
	}
}

// checkBudget leaves out a rule whose points would pass what its budget
// has left in its period (RuleUsage.Spent, read before).
func (p *program) checkBudget(c *candidate, explain bool) {
	if c.kind != kindRule || c.rule.Limits.Budget == nil || c.points == 0 {
		return
	}
	b := c.rule.Limits.Budget
	if left := b.Count - p.usage.Spent[c.rule.ID]; c.points > left {
		c.applied, c.points = false, 0
		if explain {
			c.why = "its budget of " + itoa64(b.Count) + " points " + periodPhrase(b.Period) + " has " + itoa64(max(left, 0)) + " left"
		}
	}
}
