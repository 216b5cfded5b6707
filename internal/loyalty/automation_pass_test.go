package loyalty_test

import (
	"slices"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestLapsePassLeavesOutRunMembers: a no-visit automation's pass selects
// only the lapsed members without a run of their current lapse (by its
// last visit, or by never having visited), on both engines; a run the
// previous release wrote without its moment is completed the first time
// the member is tried again, and never run twice; a new lapse is
// selected again.
func TestLapsePassLeavesOutRunMembers(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		ctx := w.ctx
		b := w.business(t, "US")
		now := w.db.Now()
		ids := map[string]string{}
		for _, name := range []string{"ann", "bob", "cid"} {
			ids[name] = w.create(t, b, `{"email":"`+name+`@lapse.example"}`).ID
		}
		// All joined 100 days ago; Ann last visited 40 days ago, Cid 5,
		// Bob never.
		visit := func(name string, at time.Time) {
			t.Helper()
			last := any(nil)
			if !at.IsZero() {
				last = at.UTC()
			}
			if _, err := w.db.SQL().ExecContext(ctx, `UPDATE customers SET created_at = $1, last_visit_at = $2
				WHERE business_id = $3 AND user_id = $4`, now.AddDate(0, 0, -100).UTC(), last, b.ID, ids[name]); err != nil {
				t.Fatal(err)
			}
		}
		visit("ann", now.Add(-40*24*time.Hour+1500*time.Millisecond))
		visit("bob", time.Time{})
		visit("cid", now.AddDate(0, 0, -5))

		p := newPasses(t, w, b, loyalty.AutomationTrigger{Type: loyalty.TriggerNoVisit, Days: 30})
		selected := func() []string {
			t.Helper()
			var names []string
			for _, id := range p.selected(t) {
				for name, mine := range ids {
					if id == mine {
						names = append(names, name)
					}
				}
			}
			slices.Sort(names)
			return names
		}
		pass := func(wantDone int) { t.Helper(); p.pass(t, wantDone) }

		if got := selected(); !slices.Equal(got, []string{"ann", "bob"}) {
			t.Fatalf("the first pass selects %v, want [ann bob]", got)
		}
		pass(2)
		if got := selected(); len(got) != 0 {
			t.Fatalf("after their runs the pass selects %v, want nobody", got)
		}
		pass(2)

		// Ann's run as the previous release wrote it, without its moment:
		// she is tried once more, starts nothing, and is left out after.
		if _, err := w.db.SQL().ExecContext(ctx, `UPDATE automation_runs SET occurred_at = NULL WHERE automation_id = $1`, p.a.ID); err != nil {
			t.Fatal(err)
		}
		if got := selected(); !slices.Equal(got, []string{"ann"}) {
			t.Fatalf("with runs of no moment the pass selects %v, want [ann] (Bob's is by its key)", got)
		}
		pass(2)
		if got := selected(); len(got) != 0 {
			t.Fatalf("once tried again the pass selects %v, want nobody", got)
		}

		// Ann came back 35 days ago, and has lapsed again since.
		visit("ann", now.AddDate(0, 0, -35))
		if got := selected(); !slices.Equal(got, []string{"ann"}) {
			t.Fatalf("after a new lapse the pass selects %v, want [ann]", got)
		}
		pass(3)
		if got := selected(); len(got) != 0 {
			t.Fatalf("after the new lapse's run the pass selects %v, want nobody", got)
		}
	})
}

// TestExpiringPassLeavesOutRunMembers: a points-expiring automation's pass
// leaves out a member with a run of the expiry it selects her for (the
// moment kept is the lot's, as each engine stores it), and selects her
// again for a later expiry.
func TestExpiringPassLeavesOutRunMembers(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		ctx := w.ctx
		b := w.business(t, "US")
		lb := w.policy(t, b, `{"points_expire_after":{"days":5}}`)
		ann := w.create(t, b, `{"email":"ann@expiring.example"}`).ID
		reward := func() {
			t.Helper()
			if _, _, err := w.ledger().Create(ctx, lb, txInput(t, `{"intent":"reward","amount":20,"customer":{"id":"`+ann+`"}}`), nil); err != nil {
				t.Fatal(err)
			}
		}
		reward()
		p := newPasses(t, w, b, loyalty.AutomationTrigger{Type: loyalty.TriggerExpiring, Days: 7})
		selected := func() int { t.Helper(); return len(p.selected(t)) }
		pass := func(wantDone int) { t.Helper(); p.pass(t, wantDone) }
		if n := selected(); n != 1 {
			t.Fatalf("the first pass selects %d members, want Ann", n)
		}
		pass(1)
		if n := selected(); n != 0 {
			t.Fatalf("after her run the pass selects %d members, want nobody", n)
		}
		// Her first points are spent: the next expiry is a later lot's (a
		// lot expires at the end of a day in the business's time zone:
		// the next day's, under longer rules).
		lb = w.policy(t, b, `{"points_expire_after":{"days":6}}`)
		reward()
		if _, _, err := w.ledger().Create(ctx, lb, txInput(t, `{"intent":"redeem","points":`+itoa(int(w.get(t, b, ann).Balance.Points/2))+
			`,"customer":{"id":"`+ann+`"}}`), nil); err != nil {
			t.Fatal(err)
		}
		if n := selected(); n != 1 {
			t.Fatalf("with a later expiry the pass selects %d members, want Ann", n)
		}
		pass(2)
		if n := selected(); n != 0 {
			t.Fatalf("after its run the pass selects %d members, want nobody", n)
		}
	})
}

// passes are the passes of an enabled automation of a trigger (an
// action: a tag) over a business.
type passes struct {
	w           *world
	b           loyalty.Business
	a           loyalty.Automation
	automations *loyalty.AutomationService
	runner      *loyalty.AutomationRunner
}

func newPasses(t *testing.T, w *world, b loyalty.Business, trigger loyalty.AutomationTrigger) passes {
	t.Helper()
	automations := &loyalty.AutomationService{Store: w.db}
	a, err := automations.Save(w.ctx, b, "", loyalty.AutomationInput{Name: loyalty.Some("Passes"), Enabled: loyalty.Some(true),
		Trigger: loyalty.Some(trigger), Actions: loyalty.Some([]loyalty.AutomationAction{{Type: loyalty.ActionAddTag, Tag: "passed"}})})
	if err != nil {
		t.Fatal(err)
	}
	return passes{w: w, b: b, a: a, automations: automations,
		runner: &loyalty.AutomationRunner{Store: w.db, Holder: "test", Every: time.Millisecond}}
}

// selected are the customers the next pass selects.
func (p passes) selected(t *testing.T) []string {
	t.Helper()
	crit, err := p.runner.PassCriteria(p.w.ctx, p.b, p.a, p.w.db.Now())
	if err != nil {
		t.Fatal(err)
	}
	cands, err := p.w.db.Candidates(p.w.ctx, p.b.ID, crit, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.CustomerID
	}
	return ids
}

// pass makes the next pass and checks the runs done are wantDone, and
// no run is in another state.
func (p passes) pass(t *testing.T, wantDone int) {
	t.Helper()
	time.Sleep(time.Second) // a pass's start is kept to the second
	if _, err := p.runner.RunOnce(p.w.ctx); err != nil {
		t.Fatal(err)
	}
	if runs, err := p.automations.Runs(p.w.ctx, p.a); err != nil || runs[loyalty.RunDone] != wantDone || len(runs) != 1 {
		t.Fatalf("runs %v (%v), want %d done", runs, err, wantDone)
	}
}
