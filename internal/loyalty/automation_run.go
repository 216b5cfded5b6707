package loyalty

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/loyalty/loyalty/internal/worker"
)

// AutomationRun is one firing of an automation for a customer: the
// occurrence of the trigger it is for (Key), and how far its actions got.
type AutomationRun struct {
	AutomationID int64
	BusinessID   string
	CustomerID   string
	Key          string
	Step         int    // the next action to do
	State        string // RunWaiting or RunDone
	DueAt        time.Time
	StartedAt    time.Time
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

// AutomationStore reads automations and their runs.
type AutomationStore interface {
	Automations(ctx context.Context, businessID string, q ListQuery) ([]Automation, int, error)
	// Automation returns one automation of a business, or ENotFound.
	Automation(ctx context.Context, businessID string, id int64) (Automation, error)
	// EnabledAutomations lists every business's enabled automations.
	EnabledAutomations(ctx context.Context) ([]Automation, error)
	// DueRuns lists up to limit runs of an automation in state waiting
	// whose DueAt is at or before at.
	DueRuns(ctx context.Context, automationID int64, waiting string, at time.Time, limit int) ([]AutomationRun, error)
	// RunCounts counts an automation's runs by state.
	RunCounts(ctx context.Context, automationID int64) (map[string]int, error)
}

// AutomationTx writes automations and their runs.
type AutomationTx interface {
	InsertAutomation(ctx context.Context, a *Automation) error
	// UpdateAutomation writes every field of a.
	UpdateAutomation(ctx context.Context, a *Automation) error
	DeleteAutomation(ctx context.Context, businessID string, id int64) error
	// StartRun records a run; false when the automation has one of the
	// key for the customer already.
	StartRun(ctx context.Context, r AutomationRun) (bool, error)
	// LastRunStarted is when the customer's latest run of the automation
	// began; zero for none.
	LastRunStarted(ctx context.Context, automationID int64, customerID string) (time.Time, error)
	// AdvanceRun writes a run's step, state and due time if it is still at
	// step from in state waiting; false when another run moved it.
	AdvanceRun(ctx context.Context, r AutomationRun, from int, waiting string) (bool, error)
	// AddCustomerTag gives a customer a tag, if it has not got it.
	AddCustomerTag(ctx context.Context, businessID, customerID, tag string) error
}

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

// criteria is the customers a trigger selects at now (days in loc).
func (t AutomationTrigger) criteria(now time.Time, loc *time.Location) CustomerCriteria {
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	switch t.Type {
	case TriggerBirthday:
		d := today.AddDate(0, 0, t.Days)
		days := []string{d.Format("01-02")}
		if d.Month() == time.February && d.Day() == 28 && !isLeap(d.Year()) {
			days = append(days, "02-29") // a leap-day birthday is kept on the 28th
		}
		return CustomerCriteria{BirthDays: days}
	case TriggerJoined:
		day := today.AddDate(0, 0, -t.Days)
		return CustomerCriteria{JoinedFrom: day, JoinedBefore: day.AddDate(0, 0, 1)}
	case TriggerNoVisit:
		since := now.Add(-time.Duration(t.Days) * 24 * time.Hour)
		return CustomerCriteria{NoVisitSince: since, JoinedBefore: since}
	case TriggerNthVisit:
		n := int64(t.Count)
		return CustomerCriteria{Visits: &LedgerSum{Min: &n, Max: &n}}
	case TriggerExpiring:
		return CustomerCriteria{Expiring: &ExpiringCriterion{From: now, To: now.Add(time.Duration(t.Days) * 24 * time.Hour),
			States: []string{LotActive, LotPending}}}
	case TriggerFirstPurchase:
		one := int64(1)
		return CustomerCriteria{Visits: &LedgerSum{Min: &one, Max: &one}}
	}
	return CustomerCriteria{} // tier_reached and card_completed: made by the runner, which reads the program
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// key names the occurrence of the trigger a candidate is selected for:
// the year of the birthday, the lapse since the last visit, or the one
// time a customer joins or reaches a visit.
func (t AutomationTrigger) key(c Candidate, now time.Time, loc *time.Location) string {
	switch t.Type {
	case TriggerBirthday:
		return "birthday " + now.In(loc).AddDate(0, 0, t.Days).Format("2006")
	case TriggerNoVisit:
		if c.LastVisitAt.IsZero() {
			return "no visit since joining"
		}
		return "no visit since " + FormatTime(c.LastVisitAt)
	case TriggerTierReached:
		return "level " + strconv.FormatInt(t.LevelID, 10)
	case TriggerExpiring:
		return "points expiring " + FormatTime(c.NextExpiry)
	case TriggerCardCompleted:
		return "card completed " + strconv.FormatInt(c.Completed, 10)
	default:
		return t.Type
	}
}

// start starts a run for a candidate unless one of the occurrence exists
// or the last began within PeriodDays, doing its first actions in the
// same transaction.
func (r *AutomationRunner) start(ctx context.Context, st Store, b Business, a Automation, c Candidate, now time.Time, loc *time.Location) (int, error) {
	run := AutomationRun{AutomationID: a.ID, BusinessID: b.ID, CustomerID: c.CustomerID, Key: a.Trigger.key(c, now, loc),
		State: RunWaiting, DueAt: now, StartedAt: now}
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
		if err != nil || !ok {
			return err
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
		State: RunBaseline, Step: len(a.Actions), DueAt: now, StartedAt: now}
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
