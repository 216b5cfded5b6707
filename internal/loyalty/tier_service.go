package loyalty

import (
	"context"
)

// TierService holds the rules of a business's tier programs: how they are
// set up, that one at most is enabled, and where a customer stands.
//
// Enabling a program (creating it enabled, or updating it to enabled)
// disables the business's other programs, as creating a referral program
// does on the reference platform: the newest decision wins rather than
// failing.
type TierService struct {
	Store Store
}

// List returns the tier programs of a business, oldest first.
func (s *TierService) List(ctx context.Context, b Business) ([]Tier, error) {
	return s.Store.Tiers(ctx, b.ID)
}

// TierListSpec says how GET /tiers is paged: no filters; relationships
// (tier_levels) is read by the handler.
var TierListSpec = ListSpec{Reserved: []string{"relationships"}, DefaultPerPage: 100}

// Page pages the tier programs of a business, oldest first.
func (s *TierService) Page(ctx context.Context, b Business, q ListQuery) ([]Tier, int, error) {
	return s.Store.TierPage(ctx, b.ID, q)
}

// Get returns one tier program of a business.
func (s *TierService) Get(ctx context.Context, b Business, id int64) (Tier, error) {
	if id <= 0 {
		return Tier{}, tierNotFound()
	}
	t, err := s.Store.Tier(ctx, b.ID, id)
	return t, asNotFound(err, tierNotFound)
}

// Create adds a tier program with its levels.
func (s *TierService) Create(ctx context.Context, b Business, in TierInput) (Tier, error) {
	t := newTier(b.ID)
	if err := in.apply(&t, nil, true); err != nil {
		return Tier{}, err
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		if err := tx.LockPrograms(ctx, b.ID); err != nil {
			return err
		}
		if err := tx.InsertTier(ctx, &t); err != nil {
			return err
		}
		if err := startPeriods(ctx, tx, t); err != nil {
			return err
		}
		if t.Enabled {
			return tx.DisableTiers(ctx, b.ID, t.ID)
		}
		return nil
	})
	return t, err
}

// Update changes a tier program; tier_levels, when sent, replaces its levels.
func (s *TierService) Update(ctx context.Context, b Business, id int64, in TierInput) (Tier, error) {
	if id <= 0 {
		return Tier{}, tierNotFound()
	}
	var out Tier
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		if err := tx.LockPrograms(ctx, b.ID); err != nil {
			return err
		}
		t, err := tx.Tier(ctx, b.ID, id)
		if err != nil {
			return asNotFound(err, tierNotFound)
		}
		existing := map[int64]bool{}
		for _, l := range t.Levels {
			existing[l.ID] = true
		}
		was := t
		if err := in.apply(&t, existing, false); err != nil {
			return err
		}
		if err := tx.UpdateTier(ctx, &t); err != nil {
			return err
		}
		if t.Enabled != was.Enabled || t.ResetType != was.ResetType || t.ResetPeriodMonth != was.ResetPeriodMonth {
			// Periods counted anew: their ends run from the current one.
			if err := startPeriods(ctx, tx, t); err != nil {
				return err
			}
		}
		out = t
		if t.Enabled {
			return tx.DisableTiers(ctx, b.ID, t.ID)
		}
		return nil
	})
	return out, err
}

// Status returns where a customer stands in the business's enabled tier
// program t, from the ledger at the store's current time.
func (s *TierService) Status(ctx context.Context, businessID, customerID string, t Tier) (TierStatus, error) {
	return tierStatus(ctx, s.Store, businessID, customerID, t)
}

// startPeriods makes the current period the one a program's period ends
// run from (RollTiers), as at its creation: none before it is ended. The
// transaction's time is the business's (its sandbox clock included).
func startPeriods(ctx context.Context, tx Tx, t Tier) error {
	cur, _ := t.Periods(tx.Now())
	return tx.SetTierRoll(ctx, t.ID, TierRoll{RolledTo: cur.Start})
}

// tierStatus is TierService.Status, shared with the customer's view.
func tierStatus(ctx context.Context, st Store, businessID, customerID string, t Tier) (TierStatus, error) {
	now := st.Now()
	curP, prevP := t.Periods(now)
	cur, err := st.TierTotals(ctx, businessID, customerID, curP.Start, curP.End)
	if err != nil {
		return TierStatus{}, err
	}
	var prev TierTotals
	if t.BasePreviousPeriod == 1 && !prevP.IsZero() {
		if prev, err = st.TierTotals(ctx, businessID, customerID, prevP.Start, prevP.End); err != nil {
			return TierStatus{}, err
		}
	}
	kept, err := keptLevels(ctx, st, t, []string{customerID})
	if err != nil {
		return TierStatus{}, err
	}
	return TierProgressKept(now, t, cur, prev, kept[customerID]), nil
}

// HeldLevels returns the index in t.Levels of the level each customer of
// ids holds now (-1 for none), as TierService.Status computes one
// customer's: TierProgressKept over the totals of the current and
// previous periods and what the keeper holds.
func HeldLevels(ctx context.Context, st TierReader, t Tier, ids []string) ([]int, error) {
	now := st.Now()
	curP, prevP := t.Periods(now)
	cur, err := st.TierTotalsOf(ctx, t.BusinessID, ids, curP.Start, curP.End)
	if err != nil {
		return nil, err
	}
	prev := map[string]TierTotals{}
	if t.BasePreviousPeriod == 1 && !prevP.IsZero() {
		if prev, err = st.TierTotalsOf(ctx, t.BusinessID, ids, prevP.Start, prevP.End); err != nil {
			return nil, err
		}
	}
	held, err := keptLevels(ctx, st, t, ids)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = -1
		st := TierProgressKept(now, t, cur[id], prev[id], held[id])
		if st.Level != nil {
			for j, l := range t.Levels {
				if l.ID == st.Level.ID {
					out[i] = j
				}
			}
		}
	}
	return out, nil
}

func tierNotFound() error { return Errorf(ENotFound, "Tier not found.") }

// asNotFound gives a not-found error the message of the resource asked for.
func asNotFound(err error, nf func() error) error {
	if ErrorCode(err) == ENotFound {
		return nf()
	}
	return err
}
