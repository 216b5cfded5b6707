package sqlstore_test

import (
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// referredCustomer creates a customer through a referral of program by referrerID.
func referredCustomer(tb testing.TB, db *sqlstore.DB, businessID, email string, program int64, referrerID string) loyalty.Customer {
	tb.Helper()
	return createCustomer(tb, db, businessID, loyalty.CustomerInput{Email: loyalty.Some(email),
		Referral: loyalty.Some(loyalty.ReferralInput{ProgramID: loyalty.Some(program), ReferrerID: loyalty.Some(referrerID)})})
}

// pointsBalance returns a customer's points balance.
func pointsBalance(tb testing.TB, db *sqlstore.DB, businessID, id string) int64 {
	tb.Helper()
	c, err := db.Customer(ctx, businessID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return c.Balance.Points
}

// referralOutcome returns how a referee's referral was settled ("" while pending).
func referralOutcome(tb testing.TB, db *sqlstore.DB, refereeID string) string {
	tb.Helper()
	var outcome string
	var settled bool
	if err := db.SQL().QueryRowContext(ctx, `SELECT outcome, paid_at IS NOT NULL FROM referrals WHERE referee_id = $1`,
		refereeID).Scan(&outcome, &settled); err != nil {
		tb.Fatal(err)
	}
	if settled != (outcome != "") {
		tb.Errorf("referral of %s: settled %v with outcome %q", refereeID, settled, outcome)
	}
	return outcome
}

// TestReferralPayout: the referee's first reward of at least the minimum
// within the time limit pays both sides once; a smaller reward leaves the
// referral pending; a late one, or one while the program is disabled,
// closes it unpaid.
func TestReferralPayout(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		start := time.Date(2026, time.March, 1, 9, 0, 0, 0, time.UTC)
		setClock(db, start)
		programs := &loyalty.ReferralProgramService{Store: db}
		prog, err := programs.Create(ctx, b, loyalty.ReferralProgramInput{CondMinAmount: loyalty.Some[loyalty.Money](2000),
			RefereeEarns: loyalty.Some[int64](50), RefererEarns: loyalty.Some[int64](100), ExpiresIn: loyalty.Some[int64](30)})
		if err != nil {
			t.Fatal(err)
		}
		referrer := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("referrer@x.example")})
		l := newTierLedger(t, db, b.ID)

		referee := referredCustomer(t, db, b.ID, "referee@x.example", prog.ID, referrer.ID)
		if e := l.at(start.Add(time.Hour), referee.ID, tierReward(1999)); e.Balance.Points != 19 || pointsBalance(t, db, b.ID, referrer.ID) != 0 {
			t.Errorf("a reward below the minimum paid: referee %d, referrer %d", e.Balance.Points, pointsBalance(t, db, b.ID, referrer.ID))
		}
		if got := referralOutcome(t, db, referee.ID); got != "" {
			t.Errorf("pending referral settled as %q", got)
		}
		if e := l.at(start.Add(2*time.Hour), referee.ID, tierReward(2000)); e.Balance.Points != 19+20+50 || pointsBalance(t, db, b.ID, referrer.ID) != 100 {
			t.Errorf("the qualifying reward: referee %d, want 89; referrer %d, want 100", e.Balance.Points, pointsBalance(t, db, b.ID, referrer.ID))
		}
		if e := l.at(start.Add(3*time.Hour), referee.ID, tierReward(5000)); e.Balance.Points != 89+50 || pointsBalance(t, db, b.ID, referrer.ID) != 100 {
			t.Errorf("a second qualifying reward paid again: referee %d, referrer %d", e.Balance.Points, pointsBalance(t, db, b.ID, referrer.ID))
		}

		// Just inside the time limit pays; at the limit it has expired.
		setClock(db, start)
		early := referredCustomer(t, db, b.ID, "early@x.example", prog.ID, referrer.ID)
		late := referredCustomer(t, db, b.ID, "late@x.example", prog.ID, referrer.ID)
		limit := start.AddDate(0, 0, 30)
		if e := l.at(limit.Add(-time.Second), early.ID, tierReward(2000)); e.Balance.Points != 70 || pointsBalance(t, db, b.ID, referrer.ID) != 200 {
			t.Errorf("a second before expiry: referee %d, referrer %d", e.Balance.Points, pointsBalance(t, db, b.ID, referrer.ID))
		}
		if e := l.at(limit, late.ID, tierReward(2000)); e.Balance.Points != 20 || pointsBalance(t, db, b.ID, referrer.ID) != 200 {
			t.Errorf("at expiry: referee %d, referrer %d; want nothing paid", e.Balance.Points, pointsBalance(t, db, b.ID, referrer.ID))
		}
		for id, want := range map[string]string{referee.ID: loyalty.ReferralPaid, early.ID: loyalty.ReferralPaid, late.ID: loyalty.ReferralExpired} {
			if got := referralOutcome(t, db, id); got != want {
				t.Errorf("referral of %s settled as %q, want %q", id, got, want)
			}
		}

		// A referrer who was deactivated is skipped; the referee's reward
		// and payout go through.
		setClock(db, limit)
		quiet := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("quiet@x.example")})
		friend := referredCustomer(t, db, b.ID, "friend@x.example", prog.ID, quiet.ID)
		customers := &loyalty.CustomerService{Store: db}
		if _, err := customers.Update(ctx, loyalty.Business{ID: b.ID, Country: "US"}, quiet.ID, loyalty.CustomerInput{Enabled: loyalty.Some(false)}); err != nil {
			t.Fatal(err)
		}
		if e := l.at(limit.Add(time.Hour), friend.ID, tierReward(2000)); e.Balance.Points != 70 || pointsBalance(t, db, b.ID, quiet.ID) != 0 {
			t.Errorf("deactivated referrer: referee %d, referrer %d", e.Balance.Points, pointsBalance(t, db, b.ID, quiet.ID))
		}

		// While the program is disabled the first qualifying reward closes
		// the referral unpaid; enabling it again does not reopen it.
		setClock(db, limit)
		idle := referredCustomer(t, db, b.ID, "idle@x.example", prog.ID, referrer.ID)
		if _, err := programs.Update(ctx, b, prog.ID, loyalty.ReferralProgramInput{Enabled: loyalty.Some(false)}); err != nil {
			t.Fatal(err)
		}
		l.at(limit.Add(time.Hour), idle.ID, tierReward(2000))
		if _, err := programs.Update(ctx, b, prog.ID, loyalty.ReferralProgramInput{Enabled: loyalty.Some(true)}); err != nil {
			t.Fatal(err)
		}
		if e := l.at(limit.Add(2*time.Hour), idle.ID, tierReward(2000)); e.Balance.Points != 40 || pointsBalance(t, db, b.ID, referrer.ID) != 200 {
			t.Errorf("disabled program: referee %d, referrer %d; want nothing paid", e.Balance.Points, pointsBalance(t, db, b.ID, referrer.ID))
		}
		if got := referralOutcome(t, db, idle.ID); got != loyalty.ReferralForfeited {
			t.Errorf("referral during a disabled program settled as %q, want %q", got, loyalty.ReferralForfeited)
		}
	})
}

// TestReferralPaidOnce: concurrent qualifying rewards pay the referral once.
func TestReferralPaidOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, db *sqlstore.DB) {
		b := loyalty.Business{ID: createBusiness(t, db, "").BusinessID}
		prog, err := (&loyalty.ReferralProgramService{Store: db}).Create(ctx, b, loyalty.ReferralProgramInput{
			CondMinAmount: loyalty.Some[loyalty.Money](100), RefereeEarns: loyalty.Some[int64](50),
			RefererEarns: loyalty.Some[int64](100), ExpiresIn: loyalty.Some[int64](0)})
		if err != nil {
			t.Fatal(err)
		}
		referrer := createCustomer(t, db, b.ID, loyalty.CustomerInput{Email: loyalty.Some("referrer@x.example")})
		referee := referredCustomer(t, db, b.ID, "referee@x.example", prog.ID, referrer.ID)
		l := newTierLedger(t, db, b.ID)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				in := tierReward(100)
				in.Customer = loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(referee.ID)})
				_, _, err := l.svc.Create(ctx, l.b, in, nil)
				for loyalty.ErrorCode(err) == loyalty.EConflict {
					_, _, err = l.svc.Create(ctx, l.b, in, nil)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := pointsBalance(t, db, b.ID, referrer.ID); got != 100 {
			t.Errorf("referrer holds %d points after 8 concurrent qualifying rewards, want 100", got)
		}
		if got := pointsBalance(t, db, b.ID, referee.ID); got != 8+50 {
			t.Errorf("referee holds %d points, want 58", got)
		}
	})
}
