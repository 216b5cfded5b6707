package loyalty

import (
	"context"
	"log/slog"
	"time"

	"github.com/loyalty/loyalty/internal/worker"
)

// AutomationRunner runs every business's enabled automations: it scans
// the customers each trigger selects now, a batch at a time, starting a
// run for each new occurrence, and does the actions that fell due. One
// instance at a time runs it (a lease).
type AutomationRunner struct {
	Store  Store
	Holder string
	Logger *slog.Logger
	Poll   time.Duration // 5s
	Lease  time.Duration // 1 min
	Batch  int           // customers per batch (500)
	// Batches bounds the batches of one automation per run (20).
	Batches int
	// Every is how long after a pass over the customers began the next
	// may begin, on the business's clock (1 min).
	Every time.Duration
	// Messages makes and sends the messages (unsubscribe links, outbox).
	Messages *CampaignRunner
}

const automationLease = "automation_runner"

// RunOnce does what is due of every enabled automation, if this instance
// holds the lease; it returns how many actions it did.
func (r *AutomationRunner) RunOnce(ctx context.Context) (int, error) {
	lease := orDefault(r.Lease, time.Minute)
	renew := func() bool {
		now := r.Store.Now()
		ok, err := r.Store.TakeLease(ctx, automationLease, r.Holder, now, now.Add(lease))
		return ok && err == nil
	}
	if !renew() {
		return 0, nil
	}
	list, err := r.Store.EnabledAutomations(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	defer func() {
		if total > 0 && r.Messages != nil && r.Messages.Notify != nil {
			r.Messages.Notify()
		}
	}()
	for _, a := range list {
		n, err := r.run(ctx, a, renew)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// run scans for new occurrences and does due actions of one automation,
// up to Batches batches of each.
func (r *AutomationRunner) run(ctx context.Context, a Automation, renew func() bool) (int, error) {
	b, err := r.Store.Business(ctx, a.BusinessID)
	if err != nil {
		return 0, err
	}
	st := ClockedStore(r.Store, b.ClockOffset)
	rules, err := st.Rules(ctx, b)
	if err != nil {
		return 0, err
	}
	loc := rules.location()
	done := 0
	batch := orDefault(r.Batch, 500)
	for range orDefault(r.Batches, 20) {
		if !renew() {
			return done, nil
		}
		now := st.Now()
		if a.PassAfter == "" && !a.PassStarted.IsZero() && now.Before(a.PassStarted.Add(orDefault(r.Every, time.Minute))) {
			break // the last pass is recent
		}
		if a.PassAfter == "" {
			a.PassStarted = now
		}
		crit, ok, err := r.criteria(ctx, st, b, a, now, loc)
		if err != nil {
			return done, err
		}
		crit.NotRun = a.Trigger.notRun(a.ID, now, loc)
		var cands []Candidate
		if ok {
			if cands, err = st.Candidates(ctx, b.ID, crit, a.PassAfter, batch); err != nil {
				return done, err
			}
		}
		baseline := a.Trigger.stateTrigger() && !a.Baselined
		for _, c := range cands {
			if baseline {
				if err := r.baseline(ctx, st, b, a, c, now, loc); err != nil {
					return done, err
				}
				continue
			}
			n, err := r.start(ctx, st, b, a, c, now, loc)
			done += n
			if err != nil {
				return done, err
			}
		}
		a.PassAfter = ""
		if len(cands) == batch {
			a.PassAfter = cands[len(cands)-1].CustomerID
		}
		if baseline && a.PassAfter == "" {
			a.Baselined = true
			a.PassStarted = time.Time{} // the first pass that fires may begin at once
		}
		next := a
		if err := st.WithTx(ctx, func(tx Tx) error { return tx.UpdateAutomation(ctx, &next) }); err != nil {
			return done, err
		}
		if a.PassAfter == "" {
			break
		}
	}
	for range orDefault(r.Batches, 20) {
		if !renew() {
			return done, nil
		}
		due, err := st.DueRuns(ctx, a.ID, RunWaiting, st.Now(), batch)
		if err != nil {
			return done, err
		}
		for _, run := range due {
			n, err := r.resume(ctx, st, b, a, run)
			done += n
			if err != nil {
				return done, err
			}
		}
		if len(due) < batch {
			break
		}
	}
	return done, nil
}

// criteria is what the trigger selects at now, within the segment; ok
// false when the segment was deleted (nobody).
func (r *AutomationRunner) criteria(ctx context.Context, st Store, b Business, a Automation, now time.Time, loc *time.Location) (CustomerCriteria, bool, error) {
	c := a.Trigger.criteria(now, loc)
	switch a.Trigger.Type {
	case TriggerNthVisit, TriggerFirstPurchase:
		// A visit counted before the automation existed fires nothing.
		c.LastVisitFrom = a.CreatedAt
	case TriggerTierReached:
		tiers, err := st.Tiers(ctx, b.ID)
		if err != nil {
			return c, false, err
		}
		t, ok := EnabledTier(tiers)
		if !ok || t.levelIndex(a.Trigger.LevelID) < 0 {
			return c, false, nil // no such level now: nobody
		}
		c.Tier = &TierCriterion{TierID: t.ID, LevelIDs: []int64{a.Trigger.LevelID}}
	case TriggerTierLost:
		tiers, err := st.Tiers(ctx, b.ID)
		if err != nil {
			return c, false, err
		}
		t, ok := EnabledTier(tiers)
		if !ok || t.levelIndex(a.Trigger.LevelID) < 0 {
			return c, false, nil // no such level now: nobody
		}
		c.Tier = t.lost(a.Trigger.LevelID)
	case TriggerCardCompleted:
		if !ownCard(ctx, st, b, a.Trigger.CardID) {
			return c, false, nil // the card was deleted since: nobody
		}
		c.Punch = &PunchCriterion{CardID: a.Trigger.CardID, CompletedMin: 1}
	}
	if a.SegmentID == 0 {
		return c, true, nil
	}
	seg, err := st.Segment(ctx, b.ID, a.SegmentID)
	if ErrorCode(err) == ENotFound {
		return c, false, nil
	} else if err != nil {
		return c, false, err
	}
	inSeg, err := (&SegmentService{Store: st}).criteria(ctx, b, seg.Filter)
	if err != nil {
		return c, false, err
	}
	c.And = &inSeg
	return c, true, nil
}

// Start runs the runner in the background until stop is called.
func (r *AutomationRunner) Start(ctx context.Context) (stop func()) {
	return worker.Start(ctx, func(ctx context.Context) {
		worker.Loop(ctx, orDefault(r.Poll, 5*time.Second), nil, func(ctx context.Context) {
			if _, err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
				logger := r.Logger
				if logger == nil {
					logger = slog.Default()
				}
				logger.Error("automation runner", "err", err)
			}
		})
	})
}
