package loyalty_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// clock makes the store's clock read *now.
func (w *world) clock(now *time.Time) {
	w.db.Clock = func() time.Time { return *now }
}

// settle runs what the scheduler runs, at the store's now.
func (w *world) settle(tb testing.TB) int {
	tb.Helper()
	n, err := loyalty.SettleDue(w.ctx, w.db, "", w.db.Now(), loyalty.SettleOptions{Batch: 3})
	if err != nil {
		tb.Fatalf("SettleDue: %v", err)
	}
	return n
}

// lotEntries counts a customer's activation and expiry entries per lot
// and kind, failing the test on any lot settled twice.
func (w *world) lotEntries(tb testing.TB, b loyalty.Business, customerID string) (activations, expiries int) {
	tb.Helper()
	rows, err := w.db.SQL().QueryContext(w.ctx, `SELECT lot_id, type_code, COUNT(*) FROM transactions
		WHERE business_id = $1 AND customer_id = $2 AND lot_id IS NOT NULL GROUP BY lot_id, type_code`, b.ID, customerID)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var lot, code, n int64
		if err := rows.Scan(&lot, &code, &n); err != nil {
			tb.Fatal(err)
		}
		if n != 1 {
			tb.Fatalf("lot %d has %d entries of type %d", lot, n, code)
		}
		if code == loyalty.TypeCodeActivation {
			activations++
		} else {
			expiries++
		}
	}
	return activations, expiries
}

// TestLotsActivateAndExpireOnTime: a pending reward activates after its
// window (counting towards tiers then), the rest of a lot expires at the
// end of its last day, each written once, dated when it fell due; a
// return after the window takes active points.
func TestLotsActivateAndExpireOnTime(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		now := time.Date(2027, 5, 10, 15, 0, 0, 0, time.UTC)
		w.clock(&now)
		b := w.business(t, "US")
		c := w.create(t, b, `{"email":"life@example.com"}`)
		ref := `"customer":{"id":"` + c.ID + `"}`
		lb := w.policy(t, b, `{"points_expire_after":{"days":30},"pending_days":14}`)
		reward := w.do(t, lb, `{"intent":"reward","points":100,`+ref+`}`)
		if reward.Pending != 100 {
			t.Fatalf("reward: %+v", reward)
		}
		// Tier progress sums the ledger's tier points over a period.
		tierPoints := func(want int64, when string) {
			t.Helper()
			tt, err := w.db.TierTotals(w.ctx, b.ID, c.ID, now.AddDate(-1, 0, 0), now.AddDate(1, 0, 0))
			if err != nil || tt.Points != want {
				t.Fatalf("tier points %s: %d (%v), want %d", when, tt.Points, err, want)
			}
		}
		tierPoints(0, "while pending")

		now = now.Add(14*24*time.Hour - time.Second)
		if n := w.settle(t); n != 0 {
			t.Fatalf("%d entries a second before the activation", n)
		}
		now = now.Add(time.Second)
		if n := w.settle(t); n != 1 {
			t.Fatalf("%d entries at the activation, want 1", n)
		}
		bal := w.checkPoints(t, b, c.ID)
		if bal.Points != 100 || bal.Pending != 0 {
			t.Fatalf("after the activation: %+v", bal)
		}
		tierPoints(100, "once activated")
		var at time.Time
		var tier int64
		if err := w.db.SQL().QueryRowContext(w.ctx, `SELECT created_at, tier_points FROM transactions WHERE type_code = 1017
			AND customer_id = $1`, c.ID).Scan(&at, &tier); err != nil || !at.Equal(now) || tier != 100 {
			t.Fatalf("activation entry at %v with %d tier points (%v), want %v and 100", at, tier, err, now)
		}
		ret := w.do(t, lb, `{"intent":"return","amount":30,`+ref+`}`)
		if ret.Pending != 0 || ret.Balance.Points != 70 || ret.TierPoints != -30 {
			t.Fatalf("a return after the window: %+v", ret)
		}

		// Earned 2027-05-10: valid through 2027-06-09, 23:59:59 UTC.
		now = time.Date(2027, 6, 9, 23, 59, 59, 0, time.UTC)
		if n := w.settle(t); n != 0 {
			t.Fatalf("%d entries at 23:59:59 of the last day", n)
		}
		now = now.Add(time.Second)
		if n := w.settle(t); n != 1 {
			t.Fatalf("%d entries at 00:00:00 after the last day, want 1", n)
		}
		bal = w.checkPoints(t, b, c.ID)
		if bal.Points != 0 || bal.Expired != 70 {
			t.Fatalf("after the expiry: %+v", bal)
		}
		tierPoints(70, "after the expiry (the return took 30)")
		now = now.Add(48 * time.Hour)
		if n := w.settle(t); n != 0 {
			t.Fatalf("a second run wrote %d entries", n)
		}
		if a, x := w.lotEntries(t, b, c.ID); a != 1 || x != 1 {
			t.Fatalf("%d activations and %d expiries, want 1 and 1", a, x)
		}
		// Each activation and expiry is an event of the business's feed,
		// its data the entry as the API shows it.
		if _, err := w.db.SequenceEvents(w.ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		evs, err := w.db.Events(w.ctx, b.ID, loyalty.EventQuery{Types: []string{loyalty.EventPointsActivated, loyalty.EventPointsExpired}, Limit: 10})
		if err != nil || len(evs) != 2 || evs[0].Type != loyalty.EventPointsActivated || evs[1].Type != loyalty.EventPointsExpired {
			t.Fatalf("points events %+v (%v), want an activation then an expiry", evs, err)
		}
		for _, ev := range evs {
			var data struct {
				ID     int64 `json:"id"`
				Points int64 `json:"points"`
				Type   int   `json:"transaction_type"`
			}
			if err := json.Unmarshal(ev.Data, &data); err != nil || data.ID == 0 {
				t.Fatalf("%s data %s (%v): want the entry with its id", ev.Type, ev.Data, err)
			}
			if ev.Type == loyalty.EventPointsExpired && (data.Points != -70 || data.Type != loyalty.TypeCodeExpiry) {
				t.Fatalf("expiry event data %s", ev.Data)
			}
		}
	})
}

// TestExpiryAtMidnightInTimeZones: points expire at the business's
// midnight, whatever UTC says, across a change of daylight saving time.
func TestExpiryAtMidnightInTimeZones(t *testing.T) {
	for _, tc := range []struct {
		name   string
		zone   string
		earned time.Time // local
		last   time.Time // the last local second they are usable
	}{
		// Earned the evening before DST starts (EST); expires on the first EDT midnight.
		{"montreal_dst_starts", "America/Montreal", time.Date(2027, 3, 13, 22, 30, 0, 0, time.UTC), time.Date(2027, 3, 14, 23, 59, 59, 0, time.UTC)},
		// Earned the day DST ends (EDT then EST).
		{"montreal_dst_ends", "America/Montreal", time.Date(2027, 11, 6, 12, 0, 0, 0, time.UTC), time.Date(2027, 11, 7, 23, 59, 59, 0, time.UTC)},
		{"kolkata", "Asia/Kolkata", time.Date(2027, 3, 13, 23, 59, 59, 0, time.UTC), time.Date(2027, 3, 14, 23, 59, 59, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachEngine(t, func(t *testing.T, w *world) {
				loc, _ := time.LoadLocation(tc.zone)
				inZone := func(x time.Time) time.Time {
					return time.Date(x.Year(), x.Month(), x.Day(), x.Hour(), x.Minute(), x.Second(), 0, loc).UTC()
				}
				now := inZone(tc.earned)
				w.clock(&now)
				b := w.business(t, "US")
				c := w.create(t, b, `{"email":"tz@example.com"}`)
				lb := w.policy(t, b, `{"points_expire_after":{"days":1},"time_zone":"`+tc.zone+`"}`)
				w.do(t, lb, `{"intent":"reward","points":10,"customer":{"id":"`+c.ID+`"}}`)
				now = inZone(tc.last)
				if n := w.settle(t); n != 0 {
					t.Fatalf("expired at %v local", tc.last)
				}
				now = now.Add(time.Second)
				if n := w.settle(t); n != 1 || w.checkPoints(t, b, c.ID).Expired != 10 {
					t.Fatalf("not expired at midnight local (%v UTC): %d entries", now, n)
				}
			})
		})
	}
}

// TestSchedulersSettleEachLotOnce: several runs at once (bypassing the
// lease, as if it had run out under a slow run) write each activation and
// expiry exactly once; with the lease, a second instance does nothing
// while the first holds it.
func TestSchedulersSettleEachLotOnce(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		now := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
		w.clock(&now)
		b := w.business(t, "US")
		lb := w.policy(t, b, `{"points_expire_after":{"days":5},"pending_days":2}`)
		var customers []string
		for i := range 12 {
			c := w.create(t, b, fmt.Sprintf(`{"email":"s%d@example.com"}`, i))
			customers = append(customers, c.ID)
			for j := range 3 {
				now = now.Add(time.Hour)
				w.do(t, lb, fmt.Sprintf(`{"intent":"reward","points":%d,"customer":{"id":"%s"}}`, 10+j, c.ID))
			}
		}
		now = now.Add(30 * 24 * time.Hour)
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := loyalty.SettleDue(w.ctx, w.db, "", now, loyalty.SettleOptions{Batch: 2})
				if err != nil {
					t.Errorf("SettleDue: %v", err)
				}
				mu.Lock()
				total += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		if total != 12*3*2 {
			t.Fatalf("%d entries written, want %d", total, 12*3*2)
		}
		for _, id := range customers {
			if a, x := w.lotEntries(t, b, id); a != 3 || x != 3 {
				t.Fatalf("customer %s: %d activations, %d expiries", id, a, x)
			}
			w.checkPoints(t, b, id)
		}

		first := &loyalty.PointsScheduler{Store: w.db, Holder: "one", Lease: 7 * 24 * time.Hour}
		second := &loyalty.PointsScheduler{Store: w.db, Holder: "two", Lease: 7 * 24 * time.Hour}
		w.do(t, lb, `{"intent":"reward","points":7,"customer":{"id":"`+customers[0]+`"}}`)
		now = now.Add(3 * 24 * time.Hour)
		if n, err := first.RunOnce(w.ctx); n != 1 || err != nil {
			t.Fatalf("first instance: %d, %v", n, err)
		}
		w.do(t, lb, `{"intent":"reward","points":7,"customer":{"id":"`+customers[1]+`"}}`)
		now = now.Add(3 * 24 * time.Hour)
		if n, err := second.RunOnce(w.ctx); n != 0 || err != nil {
			t.Fatalf("second instance while the first holds the lease: %d, %v", n, err)
		}
		now = now.Add(5 * 24 * time.Hour)
		if n, err := second.RunOnce(w.ctx); n != 3 || err != nil {
			t.Fatalf("second instance once the lease ran out: %d, %v (want the expiry of one lot, then both of the other)", n, err)
		}
	})
}

// TestPointsPropertyRandomLife: random sequences of rewards, redemptions,
// returns, adjustments, cancellations and clock advances under a policy
// with a return window and an expiry keep every rule of points after each
// step: balance = Σ ledger, active lots = active balance, pending lots =
// pending balance, nothing negative, no lot settled twice.
func TestPointsPropertyRandomLife(t *testing.T) {
	eachEngine(t, func(t *testing.T, w *world) {
		for seed := range uint64(3) {
			now := time.Date(2027, 1, 1, 9, 0, 0, 0, time.UTC)
			w.clock(&now)
			rng := rand.New(rand.NewPCG(seed, 99))
			b := w.business(t, "US")
			c := w.create(t, b, fmt.Sprintf(`{"email":"random%d@example.com"}`, seed))
			ref := `"customer":{"id":"` + c.ID + `"}`
			lb := w.policy(t, b, `{"points_expire_after":{"days":20},"pending_days":5,"time_zone":"America/Montreal"}`)
			var entries []int64
			for i := range 80 {
				var body string
				switch rng.IntN(8) {
				case 0, 1:
					body = `{"intent":"reward","amount":` + money(rng.IntN(20000)+1) + `,` + ref + `}`
				case 2:
					body = `{"intent":"redeem","points":` + itoa(rng.IntN(200)+1) + `,` + ref + `}`
				case 3:
					body = `{"intent":"return","amount":` + money(rng.IntN(10000)+1) + `,` + ref + `}`
				case 4:
					body = `{"intent":"adjust_points_balance","points":` + itoa(rng.IntN(200)-100) + `,` + ref + `}`
				case 5:
					if len(entries) > 0 {
						_, err := w.ledger().Cancel(w.ctx, b, entries[rng.IntN(len(entries))])
						if code := loyalty.ErrorCode(err); code != "" && code != loyalty.EInvalid {
							t.Fatalf("seed %d step %d: cancel: %v", seed, i, err)
						}
					}
				default:
					now = now.Add(time.Duration(rng.IntN(6*24)) * time.Hour)
					w.settle(t)
				}
				if body != "" {
					e, _, err := w.ledger().Create(w.ctx, lb, txInput(t, body), nil)
					if code := loyalty.ErrorCode(err); code != "" && code != loyalty.EInvalid {
						t.Fatalf("seed %d step %d %s: %v", seed, i, body, err)
					} else if err == nil {
						entries = append(entries, e.ID)
					}
				}
				w.checkPoints(t, b, c.ID)
				w.lotEntries(t, b, c.ID)
			}
			now = now.Add(60 * 24 * time.Hour)
			w.settle(t)
			if bal := w.checkPoints(t, b, c.ID); bal.Pending != 0 {
				t.Fatalf("seed %d: pending points left after every window: %+v", seed, bal)
			}
		}
	})
}

// TestTwoInstancesOnOnePostgres: two instances (two connection pools on
// one PostgreSQL database), each running the scheduler with a lease so
// short that both keep taking it, write every activation and expiry
// exactly once.
func TestTwoInstancesOnOnePostgres(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("needs PostgreSQL")
	}
	ctx := context.Background()
	dsn := testenv.DSN(t, sqlstore.Postgres)
	var dbs []*sqlstore.DB
	for range 2 {
		db, err := sqlstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	if _, err := dbs[0].Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	w := &world{ctx: ctx, db: dbs[0], svc: &loyalty.CustomerService{Store: dbs[0]}}
	start := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	now := start
	w.clock(&now)
	b := w.business(t, "US")
	lb := w.policy(t, b, `{"points_expire_after":{"days":3},"pending_days":1}`)
	var customers []string
	for i := range 20 {
		c := w.create(t, b, fmt.Sprintf(`{"email":"two%d@example.com"}`, i))
		customers = append(customers, c.ID)
		for j := range 4 {
			now = now.Add(time.Hour)
			w.do(t, lb, fmt.Sprintf(`{"intent":"reward","points":%d,"customer":{"id":"%s"}}`, 5+j, c.ID))
		}
	}
	// Both instances read one clock a week later.
	later := now.Add(7 * 24 * time.Hour)
	var wg sync.WaitGroup
	for i, db := range dbs {
		db.Clock = func() time.Time { return later }
		s := &loyalty.PointsScheduler{Store: db, Holder: fmt.Sprint("instance-", i), Lease: time.Nanosecond, Batch: 3}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := s.RunOnce(ctx); err != nil {
					t.Errorf("%s: %v", s.Holder, err)
				}
			}
		}()
	}
	wg.Wait()
	for _, id := range customers {
		if a, x := w.lotEntries(t, b, id); a != 4 || x != 4 {
			t.Fatalf("customer %s: %d activations and %d expiries, want 4 and 4", id, a, x)
		}
		w.checkPoints(t, b, id)
	}
}
