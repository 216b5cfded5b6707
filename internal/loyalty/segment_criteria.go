package loyalty

import (
	"slices"
	"time"
)

// CustomerCriteria is a segment's filter resolved at an instant, as the
// store runs it over the customers' rows: every set condition must hold.
// Times are absolute; ranges are inclusive unless said.
type CustomerCriteria struct {
	// Tier selects by the level the business's enabled tier program last
	// announced for the customer (customer_tiers); nil for any.
	Tier *TierCriterion
	// Points bounds the active balance.
	PointsMin, PointsMax *int64
	// JoinedFrom (at or after) and JoinedBefore (before); zero for none.
	JoinedFrom, JoinedBefore time.Time
	// LastVisitFrom (at or after) and LastVisitBefore (before) bound the
	// last visit; a customer without one fails either. NoVisitSince: no
	// visit at or after it (never visited included).
	LastVisitFrom, LastVisitBefore, NoVisitSince time.Time
	// Visits and Spend bound sums of the ledger's visits and tier spend.
	Visits, Spend *LedgerSum
	// BirthMonths are "01".."12" (a birth date is stored YYYY-MM-DD);
	// BirthDays "MM-DD".
	BirthMonths []string
	BirthDays   []string
	// LastVisitBranches: the last visit's branch is one of these;
	// LastVisitMain: or the visit named no branch (the main one's).
	LastVisitBranches []string
	LastVisitMain     bool
	// TagsAny and TagsNone as in SegmentFilter.
	TagsAny, TagsNone []string
	// Consent: the channels of the current marketing consent, at least
	// one of which must be allowed; nil for any.
	Consent *ContactChannels
	// Punch bounds a customer's progress on a punch card; nil for any.
	Punch *PunchCriterion
	// Coupon: holds (or not) a coupon still to be used; nil for any.
	Coupon *CouponCriterion
	// Expiring: holds points of a lot in one of States that expire in
	// [From, To); the candidates then carry the first such expiry
	// (Candidate.NextExpiry). Nil for any.
	Expiring *ExpiringCriterion
	// NotRun leaves out the customers who have a run of an automation
	// under a key (an automation's pass: those it started already); nil
	// for none.
	NotRun *RunCriterion
	// And are more criteria that must hold too (an automation's trigger
	// within its segment).
	And *CustomerCriteria
}

// RunCriterion names an automation's runs under one key.
type RunCriterion struct {
	AutomationID int64
	// Key: a run under it. With Occurrence, only for a customer without
	// the moment Occurrence names.
	Key string
	// Occurrence, when not "": a run whose Occurred is the customer's
	// moment it names (OccurrenceLastVisit, OccurrenceNextExpiry or
	// OccurrenceTierChanged, as Candidate carries them).
	Occurrence string
}

// The moments of a customer's a run's occurrence may be (RunCriterion).
const (
	OccurrenceLastVisit   = "last_visit"   // Candidate.LastVisitAt
	OccurrenceNextExpiry  = "next_expiry"  // Candidate.NextExpiry, of the criteria's Expiring
	OccurrenceTierChanged = "tier_changed" // Candidate.TierChangedAt, of the criteria's Tier
)

// TierCriterion selects customers by announced level.
type TierCriterion struct {
	TierID int64
	// LevelIDs are the levels announced last; 0 among them stands for
	// none (a customer below the first level).
	LevelIDs []int64
	// FromLevelIDs, when set, are the levels the last change announced
	// came from (a loss: TierLost).
	FromLevelIDs []int64
	// Unannounced: customers the keeper holds no row for match too, as
	// they hold the level a new customer holds, which is one of LevelIDs.
	Unannounced bool
}

// LedgerSum bounds the sum of an entry column of a customer's entries
// created at or after From (all of them when zero); a customer without
// entries sums 0.
type LedgerSum struct {
	From     time.Time
	Min, Max *int64
}

// PunchCriterion bounds a customer's stamps and completions on a card; a
// customer who never got a stamp has 0 of each.
//
// ChangedFrom: stamped at or after it (zero for any time); the
// candidates then carry the completions (Candidate.Completed).
type PunchCriterion struct {
	ChangedFrom             time.Time
	CardID                  int64
	StampsMin, CompletedMin int64
}

// ExpiringCriterion selects customers with points expiring in a window.
type ExpiringCriterion struct {
	From, To time.Time
	States   []string
}

// CouponCriterion selects by holding a coupon still to be used at At
// (Coupon.Available): in one of States, not expired, not taken back.
type CouponCriterion struct {
	Has     bool
	OfferID int64 // 0 for any offer
	States  []int
	At      time.Time
}

// criteria resolves a checked filter at now: relative days become times,
// the tier condition names the program and whether a customer the keeper
// has not announced holds one of the levels.
func (f SegmentFilter) criteria(now time.Time, facts segmentFacts) CustomerCriteria {
	at := func(s *string) time.Time {
		if s == nil {
			return time.Time{}
		}
		t, _ := ParseTime(*s) // checked
		return t
	}
	ago := func(d *int) time.Time {
		if d == nil {
			return time.Time{}
		}
		return now.Add(-time.Duration(*d) * 24 * time.Hour)
	}
	c := CustomerCriteria{
		PointsMin: f.PointsMin, PointsMax: f.PointsMax,
		JoinedFrom: at(f.JoinedAfter), JoinedBefore: at(f.JoinedBefore),
		LastVisitFrom: at(f.LastVisitAfter), LastVisitBefore: at(f.LastVisitBefore),
		NoVisitSince:      ago(f.NotVisitedDays),
		LastVisitBranches: f.LastVisitBranchIDs,
		TagsAny:           normalTags(f.TagsAny), TagsNone: normalTags(f.TagsNone),
	}
	if tier := facts.tier; len(f.TierLevelIDs) > 0 {
		// Without a program (it was disabled since) nobody holds a level.
		c.Tier = &TierCriterion{}
		if tier != nil {
			c.Tier = &TierCriterion{TierID: tier.ID, LevelIDs: f.TierLevelIDs,
				Unannounced: slices.Contains(f.TierLevelIDs, tier.levelID(tier.base()))}
		}
	}
	c.LastVisitMain = facts.main != "" && slices.Contains(f.LastVisitBranchIDs, facts.main)
	if f.VisitsMin != nil || f.VisitsMax != nil {
		c.Visits = &LedgerSum{From: ago(f.VisitsDays), Min: f.VisitsMin, Max: f.VisitsMax}
	}
	if f.SpendMin != nil || f.SpendMax != nil {
		s := &LedgerSum{From: ago(f.SpendDays)}
		if f.SpendMin != nil {
			x := int64(*f.SpendMin)
			s.Min = &x
		}
		if f.SpendMax != nil {
			x := int64(*f.SpendMax)
			s.Max = &x
		}
		c.Spend = s
	}
	for _, m := range f.BirthdayMonths {
		c.BirthMonths = append(c.BirthMonths, twoDigits(int64(m)))
	}
	if f.Consent != nil {
		switch *f.Consent {
		case ConsentChannelEmail:
			c.Consent = &ContactChannels{Email: true}
		case ConsentChannelSMS:
			c.Consent = &ContactChannels{SMS: true}
		case ConsentChannelPush:
			c.Consent = &ContactChannels{Push: true}
		default:
			c.Consent = &ContactChannels{Email: true, SMS: true, Push: true}
		}
	}
	if f.PunchCardID != nil {
		p := &PunchCriterion{CardID: *f.PunchCardID}
		if f.PunchStampsMin != nil {
			p.StampsMin = *f.PunchStampsMin
		}
		if f.PunchCompletedMin != nil {
			p.CompletedMin = *f.PunchCompletedMin
		}
		c.Punch = p
	}
	if f.HasCoupon != nil {
		c.Coupon = &CouponCriterion{Has: *f.HasCoupon, States: CouponIssued(), At: now}
		if f.CouponOfferID != nil {
			c.Coupon.OfferID = *f.CouponOfferID
		}
	}
	return c
}
