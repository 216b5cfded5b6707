package sqlstore_test

import (
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// tierLevelInputs builds level inputs from (name, spend in cents) pairs.
func tierLevelInputs(spec ...any) loyalty.Opt[[]loyalty.TierLevelInput] {
	var out []loyalty.TierLevelInput
	for i := 0; i+1 < len(spec); i += 2 {
		out = append(out, loyalty.TierLevelInput{Name: loyalty.Some(spec[i].(string)), ReachSpend: loyalty.Some(loyalty.Money(spec[i+1].(int)))})
	}
	return loyalty.Some(out)
}

// enabledTiers returns the ids of the enabled programs of a list.
func enabledTiers(tb testing.TB, svc *loyalty.TierService, b loyalty.Business) []int64 {
	tb.Helper()
	list, err := svc.List(ctx, b)
	if err != nil {
		tb.Fatal(err)
	}
	var out []int64
	for _, t := range list {
		if t.Enabled {
			out = append(out, t.ID)
		}
	}
	return out
}

func TestTierPrograms(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		other := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		svc := &loyalty.TierService{Store: db}

		t1, err := svc.Create(ctx, b, loyalty.TierInput{ResetType: loyalty.Some(1), TierLevels: tierLevelInputs("Silver", 10000, "Gold", 50000)})
		if err != nil {
			t.Fatal(err)
		}
		if t1.ID == 0 || !t1.Enabled || len(t1.Levels) != 2 || t1.Levels[0].ID == 0 || t1.Levels[1].Name != "Gold" {
			t.Fatalf("created %+v", t1)
		}
		got, err := svc.Get(ctx, b, t1.ID)
		if err != nil || got.ResetType != 1 || got.ResetPeriodMonth != 12 || len(got.Levels) != 2 || got.Levels[1] != t1.Levels[1] {
			t.Fatalf("read back %+v, %v", got, err)
		}
		// A program's periods are in its business's time zone.
		if got.TimeZone != "UTC" {
			t.Errorf("time zone %q, want the business's default UTC", got.TimeZone)
		}
		if _, err := db.SQL().ExecContext(ctx, `UPDATE businesses SET time_zone = 'Asia/Kolkata' WHERE id = $1`, b.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := svc.Get(ctx, b, t1.ID); err != nil || got.TimeZone != "Asia/Kolkata" {
			t.Errorf("time zone %q, %v; want the business's Asia/Kolkata", got.TimeZone, err)
		}
		// Enabling another program disables the first; a disabled one changes nothing.
		t2, err := svc.Create(ctx, b, loyalty.TierInput{TierLevels: tierLevelInputs("Bronze", 100)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Create(ctx, b, loyalty.TierInput{Enabled: loyalty.Some(false), TierLevels: tierLevelInputs("Off", 100)}); err != nil {
			t.Fatal(err)
		}
		if ids := enabledTiers(t, svc, b); len(ids) != 1 || ids[0] != t2.ID {
			t.Errorf("enabled programs %v, want only %d", ids, t2.ID)
		}

		// An update keeps the levels that send their id, adds and removes the rest.
		gold := t1.Levels[1]
		up, err := svc.Update(ctx, b, t1.ID, loyalty.TierInput{Enabled: loyalty.Some(true), TiersRelation: loyalty.Some(1),
			TierLevels: loyalty.Some([]loyalty.TierLevelInput{
				{Name: loyalty.Some("Bronze"), ReachSpend: loyalty.Some[loyalty.Money](5000)},
				{ID: loyalty.Some(gold.ID), Name: loyalty.Some("Golden"), ReachSpend: loyalty.Some[loyalty.Money](60000), ReachVisits: loyalty.Some[int64](3)},
			})})
		if err != nil {
			t.Fatal(err)
		}
		got, err = svc.Get(ctx, b, t1.ID)
		if err != nil || len(got.Levels) != 2 || got.Levels[0].ID == 0 || got.Levels[0].ID == t1.Levels[0].ID ||
			got.Levels[1] != (loyalty.TierLevel{ID: gold.ID, Name: "Golden", ReachSpend: 60000, ReachVisits: 3}) || got.TiersRelation != 1 ||
			got.ResetType != 1 || got.Levels[0] != up.Levels[0] {
			t.Errorf("after update %+v (%v)", got, err)
		}
		if ids := enabledTiers(t, svc, b); len(ids) != 1 || ids[0] != t1.ID {
			t.Errorf("enabled programs %v, want only %d", ids, t1.ID)
		}
		// The level order survives a reorder by name.
		if _, err := svc.Update(ctx, b, t1.ID, loyalty.TierInput{TierLevels: tierLevelInputs("A", 100, "B", 200, "C", 300)}); err != nil {
			t.Fatal(err)
		}
		if got, _ := svc.Get(ctx, b, t1.ID); len(got.Levels) != 3 || got.LevelNames()[2] != "C" {
			t.Errorf("sequence %v", got.LevelNames())
		}
		_, err = svc.Update(ctx, b, t1.ID, loyalty.TierInput{TierLevels: loyalty.Some([]loyalty.TierLevelInput{
			{ID: loyalty.Some(gold.ID), Name: loyalty.Some("Gone"), ReachSpend: loyalty.Some[loyalty.Money](1)}})})
		wantInvalid(t, err, "tier_levels.0.id")

		// Another business sees none of it.
		_, err = svc.Get(ctx, other, t1.ID)
		wantCode(t, err, loyalty.ENotFound)
		_, err = svc.Update(ctx, other, t1.ID, loyalty.TierInput{Enabled: loyalty.Some(false)})
		wantCode(t, err, loyalty.ENotFound)
		if list, err := svc.List(ctx, other); err != nil || len(list) != 0 {
			t.Errorf("other business lists %v, %v", list, err)
		}
		if _, err := svc.Create(ctx, other, loyalty.TierInput{TierLevels: tierLevelInputs("Theirs", 100)}); err != nil {
			t.Fatal(err)
		}
		if ids := enabledTiers(t, svc, b); len(ids) != 1 || ids[0] != t1.ID {
			t.Errorf("another business's program disabled ours: enabled %v", ids)
		}
	})
}

func TestReferralPrograms(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		other := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		svc := &loyalty.ReferralProgramService{Store: db}
		in := loyalty.ReferralProgramInput{CondMinAmount: loyalty.Some[loyalty.Money](2550), RefereeEarns: loyalty.Some[int64](50),
			RefererEarns: loyalty.Some[int64](100), ExpiresIn: loyalty.Some[int64](30)}

		_, err := svc.Create(ctx, b, loyalty.ReferralProgramInput{})
		wantInvalid(t, err, "cond_min_amount")
		p1, err := svc.Create(ctx, b, in)
		if err != nil {
			t.Fatal(err)
		}
		want := loyalty.ReferralProgram{ID: p1.ID, BusinessID: b.ID, RuleName: loyalty.DefaultReferralRuleName, CondMinAmount: 2550,
			RefereeEarns: 50, RefererEarns: 100, ExpiresIn: 30, Enabled: true, LinkReferralEnabled: true}
		if got, err := svc.Get(ctx, b, p1.ID); err != nil || got != want || p1 != want {
			t.Fatalf("created %+v, read %+v (%v), want %+v", p1, got, err, want)
		}
		p2, err := svc.Create(ctx, b, in)
		if err != nil {
			t.Fatal(err)
		}
		in.Enabled = loyalty.Some(false)
		p3, err := svc.Create(ctx, b, in)
		if err != nil {
			t.Fatal(err)
		}
		enabled := func() []int64 {
			list, err := svc.List(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, p := range list {
				if p.Enabled {
					ids = append(ids, p.ID)
				}
			}
			return ids
		}
		if ids := enabled(); len(ids) != 1 || ids[0] != p2.ID {
			t.Errorf("enabled %v, want only %d", ids, p2.ID)
		}
		up, err := svc.Update(ctx, b, p3.ID, loyalty.ReferralProgramInput{Enabled: loyalty.Some(true), RuleName: loyalty.Some(" Friends "),
			LinkReferralEnabled: loyalty.Some(false)})
		if err != nil || up.RuleName != "Friends" || up.LinkReferralEnabled || !up.Enabled || up.RefererEarns != 100 {
			t.Fatalf("updated %+v, %v", up, err)
		}
		if ids := enabled(); len(ids) != 1 || ids[0] != p3.ID {
			t.Errorf("enabled %v, want only %d", ids, p3.ID)
		}
		_, err = svc.Update(ctx, b, p3.ID, loyalty.ReferralProgramInput{ExpiresIn: loyalty.Some[int64](-1)})
		wantInvalid(t, err, "expires_in")
		_, err = svc.Get(ctx, other, p1.ID)
		wantCode(t, err, loyalty.ENotFound)
		_, err = svc.Update(ctx, other, p1.ID, loyalty.ReferralProgramInput{Enabled: loyalty.Some(true)})
		wantCode(t, err, loyalty.ENotFound)
	})
}

// tierLedger writes entries through the transaction service at fixed times.
type tierLedger struct {
	tb  testing.TB
	db  *sqlstore.DB
	b   loyalty.Business
	svc *loyalty.TransactionService
}

func newTierLedger(tb testing.TB, db *sqlstore.DB, businessID string) *tierLedger {
	tb.Helper()
	// With its rules loaded, as the API reads it: a reward goes the
	// everyday way (Store.AppendAlone), whose event names its entry.
	b, err := db.BusinessWithRules(ctx, businessID)
	if err != nil {
		tb.Fatal(err)
	}
	return &tierLedger{tb: tb, db: db, b: b, svc: &loyalty.TransactionService{Store: db, Customers: &loyalty.CustomerService{Store: db}}}
}

// at writes one transaction of customerID at time when.
func (l *tierLedger) at(when time.Time, customerID string, in loyalty.TransactionInput) loyalty.Transaction {
	l.tb.Helper()
	setClock(l.db, when)
	in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(customerID)})
	e, _, err := l.svc.Create(ctx, l.b, in, nil)
	if err != nil {
		l.tb.Fatalf("%s at %v: %v", in.Intent.V, when, err)
	}
	return e
}

func tierReward(amount loyalty.Money) loyalty.TransactionInput {
	return loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentReward), Amount: loyalty.Some(amount)}
}

// TestTierTotalsBoundary: an entry one second before a reset counts in the
// previous period, at and after it in the new one; redeeming never lowers
// the tier totals, cancelling a reward does.
func TestTierTotalsBoundary(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		biz := createBusiness(t, db, "")
		b := loyalty.Business{ID: biz.BusinessID}
		reset := time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
		setClock(db, reset.Add(-48*time.Hour))
		c := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("tiers@x.example")})
		tiers := &loyalty.TierService{Store: db}
		tr, err := tiers.Create(ctx, b, loyalty.TierInput{ResetType: loyalty.Some(loyalty.TierResetCalendar), ResetPeriodMonth: loyalty.Some(12),
			TierLevels: tierLevelInputs("Silver", 2500, "Gold", 4000)})
		if err != nil {
			t.Fatal(err)
		}
		l := newTierLedger(t, db, b.ID)
		before := l.at(reset.Add(-time.Second), c.ID, tierReward(5000))
		at := l.at(reset, c.ID, tierReward(500))
		after := l.at(reset.Add(time.Second), c.ID, tierReward(1000))

		totals := func(from, to time.Time) loyalty.TierTotals {
			t.Helper()
			tt, err := db.TierTotals(ctx, b.ID, c.ID, from, to)
			if err != nil {
				t.Fatal(err)
			}
			return tt
		}
		cur, prev := tr.Periods(reset.Add(time.Second))
		if got := totals(prev.Start, prev.End); got != (loyalty.TierTotals{Amount: 5000, Points: before.Points, Visits: 1}) {
			t.Errorf("previous period %+v, want only the entry at reset-1s", got)
		}
		if got := totals(cur.Start, cur.End); got != (loyalty.TierTotals{Amount: 1500, Points: at.Points + after.Points, Visits: 2}) {
			t.Errorf("current period %+v, want the entries at reset and reset+1s", got)
		}

		status := func(when time.Time) loyalty.TierStatus {
			t.Helper()
			setClock(db, when)
			fresh, err := tiers.Get(ctx, b, tr.ID)
			if err != nil {
				t.Fatal(err)
			}
			st, err := tiers.Status(ctx, b.ID, c.ID, fresh)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		if st := status(reset.Add(-time.Second)); st.Level == nil || st.Level.Name != "Gold" || st.Totals.Amount != 5000 {
			t.Errorf("at reset-1s: %+v, want Gold on 50.00", st)
		}
		st := status(reset.Add(time.Second))
		if st.Level != nil || st.Next.Name != "Silver" || st.Totals.Amount != 1500 || *st.LeftAmount != 1000 || st.Percent != 60 ||
			!st.StartDate.Equal(reset) || !st.EndDate.Equal(reset.AddDate(1, 0, 0)) {
			t.Errorf("at reset+1s: %+v, want no level, 10.00 left to Silver, 60%%, period 2026", st)
		}
		// Keeping the previous period's level.
		if _, err := tiers.Update(ctx, b, tr.ID, loyalty.TierInput{BasePreviousPeriod: loyalty.Some(1)}); err != nil {
			t.Fatal(err)
		}
		if st := status(reset.Add(time.Second)); st.Level == nil || st.Level.Name != "Gold" || st.Next != nil || st.Percent != 100 {
			t.Errorf("with base_previous_period: %+v, want Gold kept", st)
		}

		// Redeeming spends points but not tier points; a cancelled reward
		// takes its spend, visit and points back.
		l.at(reset.Add(time.Minute), c.ID, loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentRedeem), Points: loyalty.Some[int64](10)})
		if got := totals(cur.Start, cur.End); got.Points != at.Points+after.Points || got.Amount != 1500 {
			t.Errorf("after a redemption %+v", got)
		}
		setClock(db, reset.Add(2*time.Minute))
		if _, err := l.svc.Cancel(ctx, l.b, after.ID); err != nil {
			t.Fatal(err)
		}
		if got := totals(cur.Start, cur.End); got != (loyalty.TierTotals{Amount: 500, Points: at.Points, Visits: 1}) {
			t.Errorf("after cancelling the reward at reset+1s: %+v", got)
		}
	})
}

// TestOneEnabledUnderConcurrency: programs created enabled at the same
// time still leave exactly one enabled.
func TestOneEnabledUnderConcurrency(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		tiers := &loyalty.TierService{Store: db}
		programs := &loyalty.ReferralProgramService{Store: db}
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		retry := func(fn func() error) {
			err := fn()
			for loyalty.ErrorCode(err) == loyalty.EConflict {
				err = fn()
			}
			errs <- err
		}
		for range 8 {
			wg.Go(func() {
				retry(func() error {
					_, err := tiers.Create(ctx, b, loyalty.TierInput{TierLevels: tierLevelInputs("Silver", 100)})
					return err
				})
			})
			wg.Go(func() {
				retry(func() error {
					_, err := programs.Create(ctx, b, loyalty.ReferralProgramInput{CondMinAmount: loyalty.Some[loyalty.Money](0),
						RefereeEarns: loyalty.Some[int64](1), RefererEarns: loyalty.Some[int64](1), ExpiresIn: loyalty.Some[int64](1)})
					return err
				})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if ids := enabledTiers(t, tiers, b); len(ids) != 1 {
			t.Errorf("enabled tier programs %v, want exactly one", ids)
		}
		list, err := programs.List(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range list {
			if p.Enabled {
				n++
			}
		}
		if len(list) != 8 || n != 1 {
			t.Errorf("%d referral programs, %d enabled; want 8 and exactly 1", len(list), n)
		}
	})
}
