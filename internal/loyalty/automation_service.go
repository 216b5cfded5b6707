package loyalty

import (
	"context"
	"time"
)

// AutomationService keeps a business's automations.
type AutomationService struct {
	Store Store
}

// AutomationListSpec says how GET /automations is paged.
var AutomationListSpec = ListSpec{DefaultPerPage: 50}

func automationNotFound() error { return Errorf(ENotFound, "Automation not found.") }

// List pages the business's automations.
func (s *AutomationService) List(ctx context.Context, b Business, q ListQuery) ([]Automation, int, error) {
	return s.Store.Automations(ctx, b.ID, q)
}

// Get returns one automation of the business.
func (s *AutomationService) Get(ctx context.Context, b Business, id string) (Automation, error) {
	aid, err := intID("automation", id)
	if err != nil {
		return Automation{}, err
	}
	a, err := s.Store.Automation(ctx, b.ID, aid)
	return a, asNotFound(err, automationNotFound)
}

// Save creates an automation (id "") or changes one. A change of the
// trigger starts its scan over; the runs made stay (an occurrence never
// runs twice).
func (s *AutomationService) Save(ctx context.Context, b Business, id string, in AutomationInput) (Automation, error) {
	var a Automation
	if id != "" {
		var err error
		if a, err = s.Get(ctx, b, id); err != nil {
			return a, err
		}
	}
	segmentOK := func(id int64) bool {
		seg, err := s.Store.Segment(ctx, b.ID, id)
		return err == nil && seg.ID == id
	}
	if err := in.apply(&a, segmentOK, couponOffer(ctx, s.Store, b)); err != nil {
		return a, err
	}
	if err := s.checkTrigger(ctx, b, a.Trigger); err != nil {
		return a, err
	}
	if in.Trigger.Set || in.SegmentID.Set {
		a.PassAfter, a.PassStarted = "", time.Time{}
	}
	if in.Trigger.Set {
		a.Baselined = false
	}
	err := s.Store.WithTx(ctx, func(tx Tx) error {
		a.BusinessID, a.UpdatedAt = b.ID, tx.Now()
		if a.ID == 0 {
			a.CreatedAt = a.UpdatedAt
			return tx.InsertAutomation(ctx, &a)
		}
		return tx.UpdateAutomation(ctx, &a)
	})
	return a, err
}

// Delete removes an automation and its runs: waiting actions are not done.
func (s *AutomationService) Delete(ctx context.Context, b Business, id string) error {
	a, err := s.Get(ctx, b, id)
	if err != nil {
		return err
	}
	return s.Store.WithTx(ctx, func(tx Tx) error {
		return asNotFound(tx.DeleteAutomation(ctx, b.ID, a.ID), automationNotFound)
	})
}

// Runs counts an automation's runs by state.
func (s *AutomationService) Runs(ctx context.Context, a Automation) (map[string]int, error) {
	return s.Store.RunCounts(ctx, a.ID)
}

// checkTrigger checks that what a trigger names is the business's: a
// level of its enabled tier program, one of its punch cards.
func (s *AutomationService) checkTrigger(ctx context.Context, b Business, t AutomationTrigger) error {
	switch t.Type {
	case TriggerTierReached, TriggerTierLost:
		tiers, err := s.Store.Tiers(ctx, b.ID)
		if err != nil {
			return err
		}
		if p, ok := EnabledTier(tiers); !ok || p.levelIndex(t.LevelID) < 0 {
			return Invalid("trigger.level_id", "The level_id must be a level of the business's enabled tier program.")
		}
	case TriggerCardCompleted:
		if !ownCard(ctx, s.Store, b, t.CardID) {
			return Invalid("trigger.card_id", "The card_id must be one of the business's punch cards.")
		}
	}
	return nil
}

// ownCard reports whether the business has the punch card (not deleted).
func ownCard(ctx context.Context, st Store, b Business, id int64) bool {
	card, err := st.PunchCard(ctx, b.ID, id)
	return err == nil && card.ID == id && !card.Deleted
}
