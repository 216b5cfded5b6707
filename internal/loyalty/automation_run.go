package loyalty

import (
	"context"
	"time"
)

// AutomationRun is one firing of an automation for a customer: the
// occurrence of the trigger it is for (Key), and how far its actions got.
type AutomationRun struct {
	AutomationID int64
	BusinessID   string
	CustomerID   string
	Key          string
	// Occurred is the moment the key names when it is the customer's own
	// (AutomationTrigger.occurred: a lapse's last visit, an expiry, a
	// level lost); zero for the other triggers, and for a lapse of a
	// customer who never visited.
	Occurred  time.Time
	Step      int    // the next action to do
	State     string // RunWaiting or RunDone
	DueAt     time.Time
	StartedAt time.Time
}

// Run states.
const (
	RunWaiting = "waiting" // the next action is due at DueAt
	RunDone    = "done"
	RunFailed  = "failed" // the ledger refused an action (the customer was disabled, say)
	// RunBaseline: the customer was already in the trigger's state when
	// the automation was made; nothing is done.
	RunBaseline = "baseline"
)

// start starts a run for a candidate unless one of the occurrence exists
// or the last began within PeriodDays, doing its first actions in the
// same transaction.
func (r *AutomationRunner) start(ctx context.Context, st Store, b Business, a Automation, c Candidate, now time.Time, loc *time.Location) (int, error) {
	run := AutomationRun{AutomationID: a.ID, BusinessID: b.ID, CustomerID: c.CustomerID, Key: a.Trigger.key(c, now, loc),
		Occurred: a.Trigger.occurred(c), State: RunWaiting, DueAt: now, StartedAt: now}
	did := 0
	err := st.WithTx(ctx, func(tx Tx) error {
		if a.PeriodDays > 0 {
			last, err := tx.LastRunStarted(ctx, a.ID, c.CustomerID)
			if err != nil {
				return err
			}
			if !last.IsZero() && now.Before(last.AddDate(0, 0, a.PeriodDays)) {
				return nil
			}
		}
		ok, err := tx.StartRun(ctx, run)
		if err != nil {
			return err
		}
		if !ok {
			// The occurrence has its run, which did not keep its moment
			// (the previous release wrote it, or an earlier moment made
			// the same key): it does now, and the passes leave the
			// customer out until the next occurrence.
			if run.Occurred.IsZero() {
				return nil
			}
			return tx.SetRunOccurred(ctx, run)
		}
		did, err = r.step(ctx, tx, b, a, &run, false)
		return err
	})
	if err != nil {
		did = 0
	}
	return did, r.failed(ctx, st, run, 0, err)
}

// baseline records a customer already in the trigger's state as run,
// doing nothing.
func (r *AutomationRunner) baseline(ctx context.Context, st Store, b Business, a Automation, c Candidate, now time.Time, loc *time.Location) error {
	run := AutomationRun{AutomationID: a.ID, BusinessID: b.ID, CustomerID: c.CustomerID, Key: a.Trigger.key(c, now, loc),
		Occurred: a.Trigger.occurred(c), State: RunBaseline, Step: len(a.Actions), DueAt: now, StartedAt: now}
	return st.WithTx(ctx, func(tx Tx) error {
		_, err := tx.StartRun(ctx, run)
		return err
	})
}

// resume does the actions of a run whose wait is over.
func (r *AutomationRunner) resume(ctx context.Context, st Store, b Business, a Automation, run AutomationRun) (int, error) {
	did := 0
	from := run.Step
	err := st.WithTx(ctx, func(tx Tx) error {
		var err error
		did, err = r.step(ctx, tx, b, a, &run, true)
		return err
	})
	if err != nil {
		did = 0
	}
	return did, r.failed(ctx, st, run, from, err)
}

// failed records a run the ledger refused as failed, alone; other errors
// are returned, and a run another instance moved is left to it.
func (r *AutomationRunner) failed(ctx context.Context, st Store, run AutomationRun, from int, err error) error {
	switch {
	case err == errAlreadyDone:
		return nil
	case err == nil || ErrorCode(err) == EInternal:
		return err
	}
	return st.WithTx(ctx, func(tx Tx) error {
		if from == 0 && run.State == RunWaiting && run.Step == 0 {
			if _, err := tx.StartRun(ctx, run); err != nil {
				return err
			}
		}
		failed := run
		failed.Step, failed.State = from, RunFailed
		_, err := tx.AdvanceRun(ctx, failed, from, RunWaiting)
		return err
	})
}

// step does a run's actions from its Step up to the next wait or the
// end, and records how far it got, all in tx; resumed says the action
// at Step is a wait that is over.
func (r *AutomationRunner) step(ctx context.Context, tx Tx, b Business, a Automation, run *AutomationRun, resumed bool) (int, error) {
	now := tx.Now()
	from := run.Step
	i := from
	if resumed && i < len(a.Actions) && a.Actions[i].Type == ActionWait {
		i++
	}
	did := 0
	for ; i < len(a.Actions) && a.Actions[i].Type != ActionWait; i++ {
		if err := r.act(ctx, tx, b, a, a.Actions[i], run.CustomerID); err != nil {
			return did, err
		}
		did++
	}
	next := *run
	next.Step, next.State = i, RunDone
	if i < len(a.Actions) {
		next.State, next.DueAt = RunWaiting, now.AddDate(0, 0, a.Actions[i].Days)
	}
	ok, err := tx.AdvanceRun(ctx, next, from, RunWaiting)
	if err == nil && !ok {
		err = errAlreadyDone
	}
	if err == nil {
		*run = next
	}
	return did, err
}

// act does one action for a customer.
func (r *AutomationRunner) act(ctx context.Context, tx Tx, b Business, a Automation, act AutomationAction, customerID string) error {
	switch act.Type {
	case ActionGivePoints:
		_, err := givePoints(ctx, tx, b, customerID, act.Points, "Automation: "+a.Name)
		return err
	case ActionCoupon:
		_, err := giveCoupon(ctx, tx, b, customerID, act.OfferID, "Automation: "+a.Name)
		return err
	case ActionAddTag:
		tag, _ := normalTag(act.Tag)
		return tx.AddCustomerTag(ctx, b.ID, customerID, tag)
	case ActionSend:
		if r.Messages == nil {
			return nil
		}
		f, err := tx.RecipientFacts(ctx, b.ID, customerID, RecipientSent)
		if err != nil {
			return err
		}
		c := act.message(a.Name)
		outcome, channel := r.Messages.outcome(c, f, tx.Now())
		if outcome != RecipientSent {
			return nil // consent or contact refuse it: nothing is sent
		}
		_, err = r.Messages.deliver(ctx, tx, b, c, f, channel)
		return err
	}
	return nil
}
