package sqlstore_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkLoneRewardEvents measures rewards written through AppendAlone
// from 16 clients on each engine, without and with their events (and the
// background sequencer numbering them), to compare the two: the events
// must cost the reward path at most 10 % of its throughput.
func BenchmarkLoneRewardEvents(b *testing.B) {
	for _, engine := range testenv.Engines() {
		for _, withEvents := range []bool{false, true} {
			// Each side has its own database, seeded alike: both start
			// from the same ledger and grow alike through the runs, so
			// neither pays for the rows the other wrote.
			db := testenv.Open(b, engine)
			biz := createBusiness(b, db, "").BusinessID
			var ids []string
			for i := range 200 {
				ids = append(ids, createCustomer(b, db, biz, loyalty.CustomerInput{Email: loyalty.Some(fmt.Sprintf("b%d@example.com", i))}).ID)
			}
			b.Run(fmt.Sprintf("%s/events=%v", engine, withEvents), func(b *testing.B) {
				if withEvents {
					stop := (&events.Sequencer{Store: db, Every: 50 * time.Millisecond}).Start(ctx)
					defer stop()
				}
				b.SetParallelism(8) // 16 clients on 2 cores
				b.RunParallel(func(pb *testing.PB) {
					rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
					for pb.Next() {
						e := loneReward(db, biz, ids[rng.IntN(len(ids))])
						if !withEvents {
							e.Event = nil
						}
						if ok, err := db.AppendAlone(ctx, e); !ok || err != nil {
							b.Fatalf("AppendAlone = %v, %v", ok, err)
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rewards/s")
			})
		}
	}
}
