package sqlstore_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkExpireLots expires LOYALTY_BENCH_LOTS lots (1,000,000 by
// default; four per customer, all due at one midnight, as a monthly
// policy makes them) on PostgreSQL while 16 clients write rewards, and
// reports the rewards' throughput and p99 latency quiet and during the
// expiry, and how fast the lots expire. Expiry runs in bounded batches of
// customers, each customer in a short transaction of its own, so rewards
// keep their pace.
func BenchmarkExpireLots(b *testing.B) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		b.Skip("PostgreSQL; LOYALTY_TEST_POSTGRES=off")
	}
	lots, duty := 1_000_000, 0.25 // the scheduler's default duty
	if n, err := strconv.Atoi(os.Getenv("LOYALTY_BENCH_LOTS")); err == nil && n > 0 {
		lots = n
	}
	if d, err := strconv.ParseFloat(os.Getenv("LOYALTY_BENCH_DUTY"), 64); err == nil && d > 0 {
		duty = d
	}
	db := testenv.Open(b, sqlstore.Postgres)
	biz := createBusiness(b, db, "").BusinessID
	earners := seedCustomers(b, db, biz, 0, 1_000)
	seedCustomers(b, db, biz, 1_000, 1_000+lots/4)
	expires := time.Date(2030, 1, 1, 5, 0, 0, 0, time.UTC)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO point_lots (business_id, customer_id, earned, remaining, activates_at, expires_at, state)
			SELECT c.business_id, c.user_id, 10, 10, now(), $2, 'active' FROM customers c, generate_series(1, 4) g
			WHERE c.business_id = $1 AND c.user_id NOT IN (SELECT md5($1 || g) FROM generate_series(1, 1000) g)`, []any{biz, expires}},
		{`UPDATE customers SET points = 40 WHERE business_id = $1 AND user_id NOT IN (SELECT md5($1 || g) FROM generate_series(1, 1000) g)`,
			[]any{biz}},
	} {
		if _, err := db.SQL().ExecContext(ctx, q.sql, q.args...); err != nil {
			b.Fatal(err)
		}
	}
	db.Clock = func() time.Time { return expires.Add(time.Second) }

	quiet := rewardLoad(b, db, biz, earners, func(stop <-chan struct{}) { time.Sleep(5 * time.Second) })
	var took time.Duration
	var expired int
	loaded := rewardLoad(b, db, biz, earners, func(stop <-chan struct{}) {
		start := time.Now()
		n, err := loyalty.SettleDue(context.Background(), db, "", expires.Add(time.Second), loyalty.SettleOptions{Duty: duty})
		if err != nil {
			b.Error(err)
		}
		took, expired = time.Since(start), n
	})
	if expired != lots {
		b.Fatalf("%d lots expired, want %d", expired, lots)
	}
	b.ReportMetric(float64(expired)/took.Seconds(), "lots/s")
	b.ReportMetric(took.Seconds(), "expiry-s")
	b.ReportMetric(quiet.rate, "quiet-rewards/s")
	b.ReportMetric(loaded.rate, "loaded-rewards/s")
	b.ReportMetric(float64(quiet.p99.Microseconds())/1000, "quiet-p99-ms")
	b.ReportMetric(float64(loaded.p99.Microseconds())/1000, "loaded-p99-ms")
}

// loadResult is what a reward load measured.
type loadResult struct {
	rate float64
	p99  time.Duration
}

// rewardLoad writes rewards from 16 clients while during runs, and
// measures them.
func rewardLoad(b *testing.B, db *sqlstore.DB, biz string, ids []string, during func(stop <-chan struct{})) loadResult {
	b.Helper()
	stop := make(chan struct{})
	var mu sync.Mutex
	var lat []time.Duration
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(rand.Uint64(), 2))
			var mine []time.Duration
			for {
				select {
				case <-stop:
					mu.Lock()
					lat = append(lat, mine...)
					mu.Unlock()
					return
				default:
				}
				e := loyalty.Transaction{BusinessID: biz, CustomerID: ids[rng.IntN(len(ids))], Intent: loyalty.IntentReward,
					TypeCode: loyalty.TypeCodeReward, Name: "Reward", Amount: 1000, Points: 10, Visits: 1, TierAmount: 1000,
					TierPoints: 10, CreatedAt: db.Now()}
				t0 := time.Now()
				if ok, err := db.AppendAlone(ctx, &e); !ok || err != nil {
					b.Errorf("AppendAlone = %v, %v", ok, err)
					return
				}
				mine = append(mine, time.Since(t0))
				n.Add(1)
			}
		}()
	}
	during(stop)
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	out := loadResult{rate: float64(n.Load()) / elapsed.Seconds()}
	if len(lat) > 0 {
		out.p99 = lat[len(lat)*99/100]
	}
	return out
}
