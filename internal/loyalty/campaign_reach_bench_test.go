package loyalty_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkCampaignReach: what reaching a campaign's recipients costs, one
// runner as fast as the store lets it (an e-mail queued and 10 points
// given to each of 500 members who consent to e-mail), nothing else
// running: the time and this process's CPU per recipient. At a rate, this
// is what sending adds to the work of a service that is rewarding.
//
//	go test ./internal/loyalty -run '^$' -bench CampaignReach -benchtime 4x
func BenchmarkCampaignReach(b *testing.B) {
	for _, engine := range testenv.Engines() {
		b.Run(engine, func(b *testing.B) {
			ctx := context.Background()
			db := testenv.Open(b, engine)
			w := &world{ctx: ctx, db: db, svc: &loyalty.CustomerService{Store: db}}
			biz := w.business(b, "US")
			const n = 500
			for i := range n {
				w.create(b, biz, `{"email":"m`+strconv.Itoa(i)+`@reach.example","first_name":"M"}`)
			}
			if _, err := db.SQL().ExecContext(ctx, `UPDATE customers SET consent_email = TRUE WHERE business_id = $1`, biz.ID); err != nil {
				b.Fatal(err)
			}
			svc := loyalty.NewServices(db, loyalty.ServiceOptions{})
			seg, err := svc.Segments.Save(ctx, biz, "", loyalty.SegmentInput{Name: loyalty.Some("Everyone"),
				Filters: loyalty.Some(loyalty.SegmentFilter{})})
			if err != nil {
				b.Fatal(err)
			}
			runner := &loyalty.CampaignRunner{Store: db, Holder: "bench", UnsubscribeKey: []byte("key"),
				UnsubscribeURL: "https://x.example/u", Rate: 1e6}
			reached := 0
			start := cpuTime()
			b.ResetTimer()
			for i := range b.N {
				c, err := svc.Campaigns.Save(ctx, biz, "", loyalty.CampaignInput{Name: loyalty.Some("Hello " + strconv.Itoa(i)),
					SegmentID: loyalty.Some(seg.ID), Subject: loyalty.Some("Hello {{first_name}}"), EmailBody: loyalty.Some("Hello"),
					Gift: loyalty.Some(loyalty.CampaignGift{Points: 10}), HoldoutPercent: loyalty.Some(0)})
				if err != nil {
					b.Fatal(err)
				}
				id := strconv.FormatInt(c.ID, 10)
				if _, err := svc.Campaigns.Send(ctx, biz, id, time.Time{}); err != nil {
					b.Fatal(err)
				}
				for c.State != loyalty.CampaignSent {
					if _, err := runner.RunOnce(ctx); err != nil {
						b.Fatal(err)
					}
					if c, err = svc.Campaigns.Get(ctx, biz, id); err != nil {
						b.Fatal(err)
					}
				}
				reached += n
			}
			b.StopTimer()
			var sent int
			if err := db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM campaign_recipients WHERE outcome = 'sent'`).Scan(&sent); err != nil || sent != reached {
				b.Fatalf("%d recipients sent, want %d (%v)", sent, reached, err)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(reached), "µs/recipient")
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(reached), "µs-cpu/recipient")
		})
	}
}
