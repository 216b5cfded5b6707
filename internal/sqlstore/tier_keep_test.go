package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// tierWorld is a business with a monthly calendar tier program (Member,
// then Silver at 100.00, Gold at 500.00, Platinum at 1,000.00 spent in
// the month), its keeper and its customers.
type tierWorld struct {
	t      *testing.T
	db     *sqlstore.DB
	b      loyalty.Business
	tiers  *loyalty.TierService
	tier   loyalty.Tier
	ledger *tierLedger
	keeper *events.TierKeeper
	now    time.Time
}

func newTierWorld(t *testing.T, db *sqlstore.DB, start time.Time, in loyalty.TierInput) *tierWorld {
	t.Helper()
	w := &tierWorld{t: t, db: db, b: loyalty.Business{ID: createBusiness(t, db, "").BusinessID}, tiers: &loyalty.TierService{Store: db}}
	w.at(start)
	in.ResetType, in.ResetPeriodMonth = loyalty.Some(loyalty.TierResetCalendar), loyalty.Some(1)
	in.TierLevels = tierLevelInputs("Member", 0, "Silver", 10000, "Gold", 50000, "Platinum", 100000)
	tr, err := w.tiers.Create(ctx, w.b, in)
	if err != nil {
		t.Fatal(err)
	}
	w.tier, w.ledger = tr, newTierLedger(t, db, w.b.ID)
	w.keeper = &events.TierKeeper{Store: db, Clock: func() time.Time { return w.now }}
	return w
}

// at moves the store's clock.
func (w *tierWorld) at(when time.Time) {
	w.now = when
	setClock(w.db, when)
}

func (w *tierWorld) customer(email string) string {
	return createCustomer(w.t, w.db, w.b.ID, loyalty.CustomerInput{Email: loyalty.Some(email)}).ID
}

// spend rewards a customer's spend at the world's time.
func (w *tierWorld) spend(customerID string, cents loyalty.Money) {
	w.ledger.at(w.now, customerID, tierReward(cents))
}

// keep numbers the events and runs the keeper once.
func (w *tierWorld) keep() {
	w.t.Helper()
	if _, err := w.db.SequenceEvents(ctx, w.b.ID); err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.keeper.Drain(ctx); err != nil {
		w.t.Fatal(err)
	}
}

// roll runs the period ends due at the world's time, two customers to a
// transaction.
func (w *tierWorld) roll() int {
	w.t.Helper()
	n, err := loyalty.RollTiers(ctx, w.db, w.b.ID, w.now, 2)
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

// level is the name of the level a customer holds now ("" for none).
func (w *tierWorld) level(customerID string) string {
	w.t.Helper()
	tr, err := w.tiers.Get(ctx, w.b, w.tier.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	st, err := w.tiers.Status(ctx, w.b.ID, customerID, tr)
	if err != nil {
		w.t.Fatal(err)
	}
	if st.Level == nil {
		return ""
	}
	return st.Level.Name
}

// tierChange is the data of a tier.changed event, as the tests read it.
type tierChange struct {
	Customer          struct{ ID string }
	TierLevel         *struct{ Name string } `json:"tier_level"`
	PreviousTierLevel *struct{ Name string } `json:"previous_tier_level"`
	Direction, Reason string
	Transaction       *struct{ ID int64 }
}

// tierChanges reads a customer's tier.changed events, in order.
func (w *tierWorld) tierChanges(customerID string) []tierChange {
	w.t.Helper()
	if _, err := w.db.SequenceEvents(ctx, w.b.ID); err != nil {
		w.t.Fatal(err)
	}
	list, err := w.db.Events(ctx, w.b.ID, loyalty.EventQuery{Types: []string{loyalty.EventTierChanged}, Limit: 100})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []tierChange
	for _, e := range list {
		var d tierChange
		if err := json.Unmarshal(e.Data, &d); err != nil {
			w.t.Fatal(err)
		}
		if d.Customer.ID == customerID {
			out = append(out, d)
		}
	}
	return out
}

// causes lists the transactions the customer's tier.changed events name,
// in order; 0 for none (a period end).
func (w *tierWorld) causes(customerID string) []int64 {
	w.t.Helper()
	var out []int64
	for _, d := range w.tierChanges(customerID) {
		if d.Transaction == nil {
			out = append(out, 0)
		} else {
			out = append(out, d.Transaction.ID)
		}
	}
	return out
}

// changes lists a customer's tier.changed events as "from>to (reason)".
func (w *tierWorld) changes(customerID string) []string {
	w.t.Helper()
	name := func(l *struct{ Name string }) string {
		if l == nil {
			return "-"
		}
		return l.Name
	}
	var out []string
	for _, d := range w.tierChanges(customerID) {
		out = append(out, fmt.Sprintf("%s>%s (%s)", name(d.PreviousTierLevel), name(d.TierLevel), d.Reason))
	}
	return out
}

// TestTierDowngradePolicies: a Platinum customer of January who spends
// nothing after, under each policy, month by month; the period ends are
// written once however often (and by however many) they run, and a
// clock that jumps two months ends both periods in order.
func TestTierDowngradePolicies(t *testing.T) {
	jan := time.Date(2027, time.January, 1, 0, 0, 0, 0, time.UTC)
	feb, mar := jan.AddDate(0, 1, 0), jan.AddDate(0, 2, 0)
	for _, tc := range []struct {
		policy       string
		feb, mar     string
		events       []string
		basePrevious int
	}{
		{loyalty.DowngradeKeep, "Platinum", "Platinum", []string{"Member>Platinum (activity)"}, 0},
		{loyalty.DowngradeOneDown, "Gold", "Silver", []string{"Member>Platinum (activity)",
			"Platinum>Gold (period_end)", "Gold>Silver (period_end)"}, 0},
		{loyalty.DowngradeRecompute, "Member", "Member", []string{"Member>Platinum (activity)", "Platinum>Member (period_end)"}, 0},
		// Kept through February by base_previous_period, Gold in March.
		{loyalty.DowngradeOneDown, "Platinum", "Gold", []string{"Member>Platinum (activity)", "Platinum>Gold (period_end)"}, 1},
	} {
		t.Run(fmt.Sprintf("%s/base_previous_%d", tc.policy, tc.basePrevious), func(t *testing.T) {
			eachDB(t, func(t *testing.T, db *sqlstore.DB) {
				w := newTierWorld(t, db, jan, loyalty.TierInput{DowngradePolicy: loyalty.Some(tc.policy),
					BasePreviousPeriod: loyalty.Some(tc.basePrevious)})
				plat, quiet := w.customer("plat@x.example"), w.customer("quiet@x.example")
				w.customer("third@x.example") // three customers: batches of two
				w.at(jan.Add(time.Hour))
				w.spend(plat, 100000)
				w.keep()
				if got := w.level(plat); got != "Platinum" {
					t.Fatalf("January: %q, want Platinum", got)
				}

				w.at(feb.Add(time.Minute))
				var wg sync.WaitGroup
				for range 2 { // two instances end the period together
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := loyalty.RollTiers(ctx, db, w.b.ID, w.now, 2); err != nil {
							t.Error(err)
						}
					}()
				}
				wg.Wait()
				if n := w.roll(); n != 0 {
					t.Errorf("February's end ran again: %d changes", n)
				}
				if got := w.level(plat); got != tc.feb {
					t.Errorf("February: %q, want %q", got, tc.feb)
				}
				w.at(mar.Add(time.Minute))
				w.roll()
				if got := w.level(plat); got != tc.mar {
					t.Errorf("March: %q, want %q", got, tc.mar)
				}
				if got := w.changes(plat); strings.Join(got, ", ") != strings.Join(tc.events, ", ") {
					t.Errorf("events %q, want %q", got, tc.events)
				}
				if got := w.changes(quiet); len(got) != 0 || w.level(quiet) != "Member" {
					t.Errorf("a customer who never moved: %q, %q", got, w.level(quiet))
				}
				if tc.policy == loyalty.DowngradeKeep {
					// Back to recompute: the level kept no longer counts.
					if _, err := w.tiers.Update(ctx, w.b, w.tier.ID, loyalty.TierInput{DowngradePolicy: loyalty.Some(loyalty.DowngradeRecompute)}); err != nil {
						t.Fatal(err)
					}
					if got := w.level(plat); got != "Member" {
						t.Errorf("under recompute again: %q, want Member", got)
					}
				}
			})
		})
	}

	// The same one_down customer, the clock jumping from January to
	// March: both period ends, in order.
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		w := newTierWorld(t, db, jan, loyalty.TierInput{DowngradePolicy: loyalty.Some(loyalty.DowngradeOneDown)})
		plat := w.customer("plat@x.example")
		w.at(jan.Add(time.Hour))
		w.spend(plat, 100000)
		// The keeper has not run: the first period end announces the
		// rise before the fall.
		w.at(mar.Add(time.Minute))
		if n := w.roll(); n != 3 {
			t.Errorf("two period ends made %d changes, want 3", n)
		}
		w.keep()
		want := []string{"Member>Platinum (activity)", "Platinum>Gold (period_end)", "Gold>Silver (period_end)"}
		if got := w.changes(plat); strings.Join(got, ", ") != strings.Join(want, ", ") || w.level(plat) != "Silver" {
			t.Errorf("events %q, level %q; want %q, Silver", got, w.level(plat), want)
		}
	})
}

// TestTierKeeperAnnouncesMoves: a transaction that moves a customer's
// level is announced once, after the entry; one that does not move it,
// not at all; and while a period end is due, the keeper waits for it.
func TestTierKeeperAnnouncesMoves(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		jan := time.Date(2027, time.January, 1, 0, 0, 0, 0, time.UTC)
		w := newTierWorld(t, db, jan, loyalty.TierInput{DowngradePolicy: loyalty.Some(loyalty.DowngradeKeep)})
		c := w.customer("mover@x.example")
		w.at(jan.Add(time.Hour))
		w.spend(c, 5000) // Member still
		w.spend(c, 6000) // Silver
		e := w.ledger.at(jan.Add(2*time.Hour), c, tierReward(45000))
		w.keep()
		w.keep() // again: nothing new
		// The rewards' events name their entries: the keeper reads their customers.
		refs, err := db.Events(ctx, w.b.ID, loyalty.EventQuery{Types: []string{loyalty.EventTransactionCreated}, Limit: 10, Refs: true})
		if err != nil || len(refs) != 3 || refs[0].EntryID == 0 || len(refs[0].Data) != 0 {
			t.Fatalf("reward events %+v (%v); want 3 naming their entries", refs, err)
		}
		if got := strings.Join(w.changes(c), ", "); got != "Member>Gold (activity)" {
			t.Errorf("events %q: the keeper takes a page at once, so Silver and Gold in one page are one change", got)
		}
		// A cancellation takes the customer back down to Silver.
		w.at(jan.Add(3 * time.Hour))
		if _, err := w.ledger.svc.Cancel(ctx, w.ledger.b, e.ID); err != nil {
			t.Fatal(err)
		}
		w.keep()
		if got := strings.Join(w.changes(c), ", "); got != "Member>Gold (activity), Gold>Silver (activity)" {
			t.Errorf("after the cancellation: %q", got)
		}
		// Each names the transaction that moved the level as the feed
		// named it: the latest reward of the page, then the same reward
		// cancelled (transaction.cancelled shows the cancelled one).
		if got := w.causes(c); !slices.Equal(got, []int64{e.ID, e.ID}) {
			t.Errorf("the changes name transactions %v, want [%d %d] (the reward to Gold, then it cancelled)", got, e.ID, e.ID)
		}

		// February has begun and its period end has not run: the keeper
		// waits, then announces from the new period.
		w.at(time.Date(2027, time.February, 1, 0, 0, 30, 0, time.UTC))
		w.spend(c, 60000)
		w.keep()
		if got := w.changes(c); len(got) != 2 {
			t.Fatalf("the keeper announced %q before the period end", got)
		}
		// The points scheduler of a live business ends the period.
		sched := &loyalty.PointsScheduler{Store: db, Holder: "one"}
		if _, err := sched.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		w.keep() // the keeper goes on only once the period has ended
		want := "Member>Gold (activity), Gold>Silver (activity), Silver>Gold (activity)"
		if got := strings.Join(w.changes(c), ", "); got != want || w.level(c) != "Gold" {
			t.Errorf("events %q, level %q; want %q, Gold (kept Silver, reached Gold)", got, w.level(c), want)
		}
		if got := w.causes(c); len(got) != 3 || got[2] == 0 || got[2] == e.ID {
			t.Errorf("the changes name transactions %v; the last should name February's reward", got)
		}
	})
}

// rewardAfterRead is the keeper's store, which runs then (once) right
// after the keeper has read a page of the feed: a reward committed
// between the keeper's read of the feed and its count.
type rewardAfterRead struct {
	*sqlstore.DB
	then func()
}

func (s *rewardAfterRead) Events(ctx context.Context, businessID string, q loyalty.EventQuery) ([]loyalty.Event, error) {
	page, err := s.DB.Events(ctx, businessID, q)
	if then := s.then; then != nil && len(page) > 0 {
		s.then = nil
		then()
	}
	return page, err
}

// TestTierKeeperNamesTheRewardItCounted: the keeper reads a page holding
// a reward short of Silver, and the customer's next reward, which reaches
// Silver, commits before the keeper counts the totals. The tier.changed
// names that next reward, the one that brought the level (it once named
// the first: e2e TestTierChangedWithItsTransaction failed so under
// -race), and the next page, holding it, announces nothing again. A
// cancellation's change still names the cancelled reward.
func TestTierKeeperNamesTheRewardItCounted(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		jan := time.Date(2027, time.January, 1, 0, 0, 0, 0, time.UTC)
		w := newTierWorld(t, db, jan, loyalty.TierInput{})
		store := &rewardAfterRead{DB: db}
		w.keeper = &events.TierKeeper{Store: store, Clock: func() time.Time { return w.now }}
		c := w.customer("racer@x.example")
		w.at(jan.Add(time.Hour))
		w.keep()
		small := w.ledger.at(w.now, c, tierReward(4000))
		var lift loyalty.Transaction
		store.then = func() { lift = w.ledger.at(w.now, c, tierReward(8000)) }
		w.keep()
		if lift.ID == 0 {
			t.Fatal("the keeper read no page")
		}
		w.keep()
		if got, causes := strings.Join(w.changes(c), ", "), w.causes(c); got != "Member>Silver (activity)" || !slices.Equal(causes, []int64{lift.ID}) {
			t.Fatalf("changes %q naming %v; want Member>Silver once, naming the reward that reached it (%d, not %d)", got, causes, lift.ID, small.ID)
		}
		// A cancellation, counted with the page that shows it, names the
		// reward cancelled.
		w.at(jan.Add(2 * time.Hour))
		if _, err := w.ledger.svc.Cancel(ctx, w.ledger.b, lift.ID); err != nil {
			t.Fatal(err)
		}
		w.keep()
		if got, causes := strings.Join(w.changes(c), ", "), w.causes(c); got != "Member>Silver (activity), Silver>Member (activity)" ||
			!slices.Equal(causes, []int64{lift.ID, lift.ID}) {
			t.Errorf("after the cancellation: changes %q naming %v; want back to Member naming %d", got, causes, lift.ID)
		}
	})
}

// TestTierKeeperCatchUp: a reader of the feed catches the keeper up
// (TierKeeper.CatchUp) while another keeper (another instance) holds the
// business's cursor: it announces what the events past the cursor moved
// and leaves the cursor to the holder, which then announces nothing
// twice. (With the cursor its own, as on one instance, e2e
// TestTierChangedWithItsTransaction.)
func TestTierKeeperCatchUp(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		jan := time.Date(2027, time.January, 1, 0, 0, 0, 0, time.UTC)
		w := newTierWorld(t, db, jan, loyalty.TierInput{})
		c := w.customer("reader@x.example")
		reader := &events.TierKeeper{Store: db, Clock: func() time.Time { return w.now }}
		catchUp := func() {
			t.Helper()
			if _, err := db.SequenceEvents(ctx, w.b.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := reader.CatchUp(ctx, w.b.ID); err != nil {
				t.Fatal(err)
			}
		}
		cursor := func() int64 {
			t.Helper()
			at, err := db.CursorAt(ctx, events.TierDestination, w.b.ID)
			if err != nil {
				t.Fatal(err)
			}
			return at
		}
		w.at(jan.Add(time.Hour))
		w.keep()          // the other keeper holds the business's cursor from now
		w.spend(c, 12000) // Silver
		held := cursor()
		catchUp()
		if got := strings.Join(w.changes(c), ", "); got != "Member>Silver (activity)" {
			t.Fatalf("a catch-up while another keeper holds the cursor: %q", got)
		}
		if cursor() != held {
			t.Errorf("the reader moved a cursor another keeper holds: %d, was %d", cursor(), held)
		}
		w.keep()          // the holder takes the same events: nothing to announce again
		w.spend(c, 40000) // Gold
		held = cursor()
		catchUp()
		if got := strings.Join(w.changes(c), ", "); got != "Member>Silver (activity), Silver>Gold (activity)" {
			t.Fatalf("a catch-up while another keeper holds the cursor: %q", got)
		}
		if cursor() != held {
			t.Errorf("the reader moved a cursor another keeper holds: %d, was %d", cursor(), held)
		}
		w.keep() // the holder takes the same events: nothing to announce again
		w.keep()
		if got := strings.Join(w.changes(c), ", "); got != "Member>Silver (activity), Silver>Gold (activity)" {
			t.Errorf("after the holder's rounds: %q", got)
		}
		if got := w.causes(c); len(got) != 2 || got[0] == 0 || got[1] == 0 || got[0] == got[1] {
			t.Errorf("the changes name transactions %v, want each its own reward", got)
		}
	})
}

// TestTierDowngradePolicyInput: the policy is one of three, and keep or
// one_down only on calendar periods.
func TestTierDowngradePolicyInput(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		svc := &loyalty.TierService{Store: db}
		_, err := svc.Create(ctx, b, loyalty.TierInput{DowngradePolicy: loyalty.Some("never"), ResetType: loyalty.Some(1),
			TierLevels: tierLevelInputs("Silver", 100)})
		wantInvalid(t, err, "downgrade_policy")
		_, err = svc.Create(ctx, b, loyalty.TierInput{DowngradePolicy: loyalty.Some(loyalty.DowngradeKeep),
			TierLevels: tierLevelInputs("Silver", 100)})
		wantInvalid(t, err, "downgrade_policy")
		tr, err := svc.Create(ctx, b, loyalty.TierInput{TierLevels: tierLevelInputs("Silver", 100)})
		if err != nil || tr.DowngradePolicy != loyalty.DowngradeRecompute {
			t.Fatalf("default policy %q, %v", tr.DowngradePolicy, err)
		}
		tr, err = svc.Update(ctx, b, tr.ID, loyalty.TierInput{ResetType: loyalty.Some(1), DowngradePolicy: loyalty.Some(loyalty.DowngradeOneDown)})
		if err != nil || tr.DowngradePolicy != loyalty.DowngradeOneDown {
			t.Fatalf("update: %q, %v", tr.DowngradePolicy, err)
		}
		// Leaving calendar periods with the policy kept is refused.
		_, err = svc.Update(ctx, b, tr.ID, loyalty.TierInput{ResetType: loyalty.Some(2)})
		wantInvalid(t, err, "downgrade_policy")
		if got, _ := svc.Get(ctx, b, tr.ID); got.DowngradePolicy != loyalty.DowngradeOneDown || got.ResetType != 1 {
			t.Errorf("stored %+v after a refused update", got)
		}
	})
}

// TestFeedShowsARoundsTierChange: a read of the feed (EventService.List)
// that comes while the keeper's round announces a change shows it. The
// reward's event is numbered (by the relay) before the read; the round
// announces its tier.changed after the read has numbered the feed and
// before it catches the keeper up, which then finds nothing left to take.
// The read must still number, and show, the round's event.
func TestFeedShowsARoundsTierChange(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		jan := time.Date(2027, time.January, 1, 0, 0, 0, 0, time.UTC)
		w := newTierWorld(t, db, jan, loyalty.TierInput{})
		c := w.customer("between@x.example")
		w.at(jan.Add(time.Hour))
		w.keep()
		w.spend(c, 12000) // Silver
		if _, err := db.SequenceEvents(ctx, w.b.ID); err != nil {
			t.Fatal(err)
		}
		svc := &loyalty.EventService{Store: db, KeepTiers: func(ctx context.Context, businessID string) (int, error) {
			if _, err := w.keeper.Drain(ctx); err != nil { // the round, between the read's numbering and its catch-up
				return 0, err
			}
			return w.keeper.CatchUp(ctx, businessID)
		}}
		got, err := svc.List(ctx, w.b, loyalty.EventQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range got {
			types = append(types, e.Type)
		}
		if !slices.Contains(types, loyalty.EventTierChanged) {
			t.Fatalf("the feed read while the round announced Silver shows %v, without its tier.changed", types)
		}
	})
}
