package main

import (
	"context"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/testenv"
)

// redeemLots is how many rewards (so lots of points) each customer of the
// redeem benchmark earned before it redeems.
const redeemLots = 8

// BenchmarkRedeemPoints: POST /transactions, a redemption of points, from
// 16 concurrent clients over 500 customers who each earned their points in
// several rewards: every redemption takes from the lot that expires first
// (the transactional road, with the lots read under the customer's lock).
func BenchmarkRedeemPoints(b *testing.B) {
	for _, engine := range testenv.Engines() {
		s, biz, ids := rewardSite(b, engine)
		ctx := context.Background()
		ledger := &loyalty.TransactionService{Store: s.app.DB, Customers: &loyalty.CustomerService{Store: s.app.DB}}
		for _, id := range ids {
			for range redeemLots {
				in := loyalty.TransactionInput{Intent: loyalty.Some(loyalty.IntentReward), Points: loyalty.Some[int64](100_000),
					Customer: loyalty.Some(loyalty.CustomerRef{ID: loyalty.Some(id)})}
				if _, _, err := ledger.Create(ctx, biz, in, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := analyze(ctx, s.app); err != nil {
			b.Fatal(err)
		}
		b.Run(engine, func(b *testing.B) {
			s.clients(b, engine, "redeem", ids, func(id string) string {
				return `{"intent":"redeem","points":3,"customer":{"id":"` + id + `"}}`
			})
		})
	}
}
