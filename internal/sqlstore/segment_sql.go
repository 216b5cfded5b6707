package sqlstore

import (
	"fmt"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The SQL of a customer criteria (loyalty.CustomerCriteria), which the
// segments' counts and lists, the campaigns' draw and the automations'
// scan share (segment.go).

// criteriaWhere is the condition on the customers row aliased c that
// selects the active customers of a business c selects, with its
// arguments. It restates no rule: each criterion is already resolved by
// the domain to columns and bounds (loyalty.CustomerCriteria).
func criteriaWhere(dialect, businessID string, cr loyalty.CustomerCriteria) (string, []any) {
	b := &criteriaArgs{args: []any{businessID}}
	conds := append([]string{"c.business_id = $1", activeCustomers(dialect)}, b.conds(cr)...)
	return strings.Join(conds, " AND "), b.args
}

// criteriaArgs gathers the arguments of criteria's conditions, numbered
// after those it holds.
type criteriaArgs struct{ args []any }

// conds are the conditions of cr and of every criteria it is joined to
// (And), their values added as arguments.
func (b *criteriaArgs) conds(cr loyalty.CustomerCriteria) []string {
	ph := func(v any) string {
		b.args = append(b.args, v)
		return fmt.Sprintf("$%d", len(b.args))
	}
	list := func(vals []string) string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = ph(v)
		}
		return strings.Join(out, ", ")
	}
	var conds []string
	for c := &cr; c != nil; c = c.And {
		conds = append(conds, criteriaConds(*c, ph, list)...)
	}
	return conds
}

// criteriaConds are the conditions of one criteria's own fields.
func criteriaConds(cr loyalty.CustomerCriteria, ph func(any) string, list func([]string) string) []string {
	var conds []string
	if t := cr.Tier; t != nil {
		if len(t.LevelIDs) == 0 {
			conds = append(conds, "1 = 0")
		} else {
			in := func(col string, levels []int64) string {
				var ids []string
				var none bool
				for _, id := range levels {
					if id == 0 {
						none = true // no level: stored as NULL
						continue
					}
					ids = append(ids, ph(id))
				}
				cond := "1 = 0"
				if len(ids) > 0 {
					cond = col + ` IN (` + strings.Join(ids, ", ") + `)`
				}
				if none {
					cond = `(` + cond + ` OR ` + col + ` IS NULL)`
				}
				return cond
			}
			tier := ph(t.TierID)
			match := in("ct.level_id", t.LevelIDs)
			if t.FromLevelIDs != nil {
				match += ` AND ` + in("ct.previous_level_id", t.FromLevelIDs) + ` AND ct.changed_at IS NOT NULL`
			}
			cond := `EXISTS (SELECT 1 FROM customer_tiers ct WHERE ct.business_id = c.business_id AND ct.tier_id = ` + tier +
				` AND ct.customer_id = c.user_id AND ` + match + `)`
			if t.Unannounced {
				cond = `(` + cond + ` OR NOT EXISTS (SELECT 1 FROM customer_tiers ct WHERE ct.business_id = c.business_id AND ct.tier_id = ` +
					tier + ` AND ct.customer_id = c.user_id))`
			}
			conds = append(conds, cond)
		}
	}
	if cr.PointsMin != nil {
		conds = append(conds, "c.points >= "+ph(*cr.PointsMin))
	}
	if cr.PointsMax != nil {
		conds = append(conds, "c.points <= "+ph(*cr.PointsMax))
	}
	if !cr.JoinedFrom.IsZero() {
		conds = append(conds, "c.created_at >= "+ph(cr.JoinedFrom.UTC()))
	}
	if !cr.JoinedBefore.IsZero() {
		conds = append(conds, "c.created_at < "+ph(cr.JoinedBefore.UTC()))
	}
	if !cr.LastVisitFrom.IsZero() {
		conds = append(conds, "c.last_visit_at >= "+ph(cr.LastVisitFrom.UTC()))
	}
	if !cr.LastVisitBefore.IsZero() {
		conds = append(conds, "c.last_visit_at < "+ph(cr.LastVisitBefore.UTC()))
	}
	if !cr.NoVisitSince.IsZero() {
		conds = append(conds, "(c.last_visit_at IS NULL OR c.last_visit_at < "+ph(cr.NoVisitSince.UTC())+")")
	}
	if s := cr.Visits; s != nil {
		conds = append(conds, ledgerSum("visits", "c.visits_total", s, ph)...)
	}
	if s := cr.Spend; s != nil {
		conds = append(conds, ledgerSum("tier_amount", "c.spend_total", s, ph)...)
	}
	if len(cr.BirthMonths) > 0 {
		conds = append(conds, "substr(c.birth_date, 6, 2) IN ("+list(cr.BirthMonths)+")")
	}
	if len(cr.LastVisitBranches) > 0 {
		cond := "c.last_visit_branch IN (" + list(cr.LastVisitBranches) + ")"
		if cr.LastVisitMain {
			cond = "(" + cond + " OR (c.last_visit_at IS NOT NULL AND c.last_visit_branch IS NULL))"
		}
		conds = append(conds, cond)
	}
	tags := `SELECT 1 FROM customer_tags g WHERE g.business_id = c.business_id AND g.customer_id = c.user_id AND g.tag IN (`
	if len(cr.TagsAny) > 0 {
		conds = append(conds, "EXISTS ("+tags+list(cr.TagsAny)+"))")
	}
	if len(cr.TagsNone) > 0 {
		conds = append(conds, "NOT EXISTS ("+tags+list(cr.TagsNone)+"))")
	}
	if ch := cr.Consent; ch != nil {
		var any []string
		for _, c := range []struct {
			on  bool
			col string
		}{{ch.Email, "c.consent_email"}, {ch.SMS, "c.consent_sms"}, {ch.Push, "c.consent_push"}} {
			if c.on {
				any = append(any, c.col)
			}
		}
		if len(any) == 0 {
			any = []string{"1 = 0"}
		}
		conds = append(conds, "("+strings.Join(any, " OR ")+")")
	}
	if p := cr.Punch; p != nil && (p.StampsMin > 0 || p.CompletedMin > 0) {
		conds = append(conds, `EXISTS (SELECT 1 FROM punch_progress pp WHERE pp.card_id = `+ph(p.CardID)+
			` AND pp.customer_id = c.user_id AND pp.stamps >= `+ph(p.StampsMin)+` AND pp.completed >= `+ph(p.CompletedMin)+`)`)
	}
	if x := cr.Expiring; x != nil {
		conds = append(conds, `EXISTS (`+lotsExpiringIn(x, ph)+`)`)
	}
	if cp := cr.Coupon; cp != nil {
		states := make([]string, len(cp.States))
		for i, s := range cp.States {
			states[i] = ph(s)
		}
		if len(states) == 0 {
			states = []string{"NULL"}
		}
		cond := `EXISTS (SELECT 1 FROM coupons cp WHERE cp.business_id = c.business_id AND cp.customer_id = c.user_id
			AND cp.coupon_type_id IN (` + strings.Join(states, ", ") + `) AND cp.taken_back_at IS NULL
			AND (cp.expires_at IS NULL OR cp.expires_at > ` + ph(cp.At.UTC()) + `)`
		if cp.OfferID != 0 {
			cond += ` AND cp.offer_id = ` + ph(cp.OfferID)
		}
		cond += `)`
		if !cp.Has {
			cond = "NOT " + cond
		}
		conds = append(conds, cond)
	}
	if len(cr.BirthDays) > 0 {
		conds = append(conds, "substr(c.birth_date, 6, 5) IN ("+list(cr.BirthDays)+")")
	}
	return conds
}

// ledgerSum bounds the sum of an entry column over a customer's entries:
// all of them by the running total kept on the row (total), else the
// entries from s.From on, summed from the ledger by its (business,
// created_at) index. A customer without entries sums 0: a lower bound
// above 0 needs entries (IN), otherwise only an upper bound can exclude
// (NOT IN those above it).
func ledgerSum(column, total string, s *loyalty.LedgerSum, ph func(any) string) []string {
	if s.From.IsZero() {
		var out []string
		if s.Min != nil {
			out = append(out, total+" >= "+ph(*s.Min))
		}
		if s.Max != nil {
			out = append(out, total+" <= "+ph(*s.Max))
		}
		return out
	}
	sums := `SELECT t.customer_id FROM transactions t WHERE t.business_id = $1 AND t.created_at >= ` + ph(s.From.UTC()) +
		` GROUP BY t.customer_id HAVING `
	if s.Min != nil && *s.Min > 0 {
		having := `SUM(t.` + column + `) >= ` + ph(*s.Min)
		if s.Max != nil {
			having += ` AND SUM(t.` + column + `) <= ` + ph(*s.Max)
		}
		return []string{`c.user_id IN (` + sums + having + `)`}
	}
	if s.Max != nil {
		return []string{`c.user_id NOT IN (` + sums + `SUM(t.` + column + `) > ` + ph(*s.Max) + `)`}
	}
	return nil
}

// lotsExpiringIn selects a customer's lots (aliased l, of the customers row
// c) holding points that expire in x's window.
func lotsExpiringIn(x *loyalty.ExpiringCriterion, ph func(any) string) string {
	states := make([]string, len(x.States))
	for i, st := range x.States {
		states[i] = ph(st)
	}
	if len(states) == 0 {
		states = []string{"NULL"}
	}
	return `SELECT l.expires_at FROM point_lots l WHERE l.business_id = c.business_id AND l.customer_id = c.user_id
		AND l.state IN (` + strings.Join(states, ", ") + `) AND l.remaining > 0
		AND l.expires_at >= ` + ph(x.From.UTC()) + ` AND l.expires_at < ` + ph(x.To.UTC())
}
