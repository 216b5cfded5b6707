package loyalty_test

import (
	"context"
	"slices"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkCampaignDraw queues a campaign to a segment of 200,000
// members on PostgreSQL (the target: under a minute): each
// operation draws the whole segment into recipients and holdout, as the
// runner does, in batches of 500. The reference, "read", reads the same
// 200,000 ids the same way, writing nothing.
//
//	go test ./internal/loyalty -run '^$' -bench CampaignDraw -benchtime 1x -count 8 -timeout 60m
func BenchmarkCampaignDraw(b *testing.B) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		b.Skip("PostgreSQL")
	}
	ctx := context.Background()
	db := testenv.Open(b, sqlstore.Postgres)
	w := &world{ctx: ctx, db: db}
	biz := w.business(b, "US")
	const n = 200_000
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at, updated_at)
			SELECT $1 || '-' || g, $1 || '-' || g || '@seed.example', now(), now() FROM generate_series(1, $2) g`,
		`INSERT INTO customers (business_id, user_id, email, consent_email, created_at, updated_at)
			SELECT $1, $1 || '-' || g, $1 || '-' || g || '@seed.example', TRUE, now(), now() FROM generate_series(1, $2) g`,
	} {
		if _, err := db.SQL().ExecContext(ctx, q, biz.ID, n); err != nil {
			b.Fatal(err)
		}
	}
	seg, err := (&loyalty.SegmentService{Store: db}).Save(ctx, biz, "", loyalty.SegmentInput{Name: loyalty.Some("Everyone"),
		Filters: loyalty.Some(loyalty.SegmentFilter{})})
	if err != nil {
		b.Fatal(err)
	}
	campaigns := &loyalty.CampaignService{Store: db}
	runner := &loyalty.CampaignRunner{Store: db, Batch: 500}
	b.Run("draw", func(b *testing.B) {
		for b.Loop() {
			c, err := campaigns.Save(ctx, biz, "", loyalty.CampaignInput{Name: loyalty.Some("Hello"), SegmentID: loyalty.Some(seg.ID),
				Subject: loyalty.Some("Hello"), EmailBody: loyalty.Some("Hello")})
			if err != nil {
				b.Fatal(err)
			}
			got, err := runner.DrawAll(ctx, c)
			if err != nil || got != n {
				b.Fatalf("drew %d of %d: %v", got, n, err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			after, got := "", 0
			for {
				ids, err := db.CustomerIDsWhere(ctx, biz.ID, loyalty.CustomerCriteria{}, after, 500)
				if err != nil {
					b.Fatal(err)
				}
				got += len(ids)
				if len(ids) < 500 {
					break
				}
				after = ids[len(ids)-1]
			}
			if got != n {
				b.Fatalf("read %d of %d", got, n)
			}
		}
	})
}
