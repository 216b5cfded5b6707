package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/testenv"
)

// The figures of issue 29 item 9, each against its reference, measured as
// alternating runs of the two benchmarks (docs/measuring.md):
//
//	BenchmarkRewardBasketRules against BenchmarkRewardByAmount: a reward
//	with a 5-item basket for a business with 50 earning rules, and a
//	plain reward by amount for a business with none (≥ 0.8×);
//	BenchmarkEvaluateBasket against BenchmarkGetCustomer: the dry run of
//	that basket, and GET /customers/{id} (at least as fast).

// rulesSite is a bench site whose business has 5 products in 2
// categories and 50 live earning rules of every kind, some of which
// apply to basketBody's basket.
func rulesSite(b *testing.B, engine string) (*benchSite, []string) {
	ctx := context.Background()
	s, biz, ids := rewardSite(b, engine)
	products := s.app.Services.Products
	var cats, prods []int64
	for _, name := range []string{"Drinks", "Food"} {
		c, err := products.SaveCategory(ctx, biz, "", loyalty.CategoryInput{Name: loyalty.Some(name)})
		if err != nil {
			b.Fatal(err)
		}
		cats = append(cats, c.ID)
	}
	for i := range 5 {
		p, err := products.Create(ctx, biz, loyalty.ProductInput{Title: loyalty.Some(fmt.Sprintf("Product %d", i)),
			SKU: loyalty.Some(fmt.Sprintf("SKU-%d", i)), CategoryID: loyalty.Some(cats[i%2])})
		if err != nil {
			b.Fatal(err)
		}
		prods = append(prods, p.ID)
	}
	for i := range 50 {
		var rule map[string]any
		switch i % 5 {
		case 0:
			rule = map[string]any{"effect": map[string]any{"type": "multiplier", "factor": 1.5 + float64(i%4)/2},
				"conditions": map[string]any{"categories": []int64{cats[0]}}, "schedule": map[string]any{"from": "00:00", "to": "23:59"}}
		case 1:
			rule = map[string]any{"effect": map[string]any{"type": "points_per_item", "points": 1},
				"conditions": map[string]any{"products": []int64{prods[i%5]}}}
		case 2:
			rule = map[string]any{"effect": map[string]any{"type": "bonus", "points": 5}, "conditions": map[string]any{"min_amount": 1000}}
		case 3:
			rule = map[string]any{"effect": map[string]any{"type": "bonus", "points": 1}, "conditions": map[string]any{"channels": []string{"online"}}}
		case 4:
			rule = map[string]any{"effect": map[string]any{"type": "points_per_amount", "points": 1, "per_amount": 10},
				"conditions": map[string]any{"categories": []int64{cats[1]}}, "priority": -1}
		}
		rule["name"] = fmt.Sprintf("Rule %d", i)
		raw, _ := json.Marshal(rule)
		var in loyalty.EarningRuleInput
		if err := json.Unmarshal(raw, &in); err != nil {
			b.Fatal(err)
		}
		if _, err := s.app.Services.EarningRules.Create(ctx, biz, in); err != nil {
			b.Fatal(err)
		}
	}
	if err := analyze(ctx, s.app); err != nil {
		b.Fatal(err)
	}
	return s, ids
}

// basketBody is a 5-item basket of the rules site's products, in store.
const basketBody = `"items":[{"sku":"SKU-0","quantity":2,"price":3.50},{"sku":"SKU-1","price":4.25},{"sku":"SKU-2","quantity":1,"price":2.00},` +
	`{"sku":"SKU-3","quantity":3,"price":1.20,"discount":0.30},{"sku":"SKU-4","price":6.00}],"tax":1.40,"channel":"in_store"`

// BenchmarkRewardBasketRules: POST /transactions, a reward with a 5-item
// basket for a business with 50 earning rules, from 16 concurrent clients
// over 500 customers.
func BenchmarkRewardBasketRules(b *testing.B) {
	for _, engine := range testenv.Engines() {
		s, ids := rulesSite(b, engine)
		b.Run(engine, func(b *testing.B) {
			s.clients(b, engine, "reward", ids, func(id string) string {
				return `{"intent":"reward",` + basketBody + `,"customer":{"id":"` + id + `"}}`
			})
		})
	}
}

// BenchmarkEvaluateBasket: POST /baskets/evaluate of that basket for one
// of 500 customers, from 16 concurrent clients.
func BenchmarkEvaluateBasket(b *testing.B) {
	for _, engine := range testenv.Engines() {
		s, ids := rulesSite(b, engine)
		b.Run(engine, func(b *testing.B) {
			s.requests(b, engine, "evaluation", func() (string, string, string) {
				return http.MethodPost, "/baskets/evaluate", `{` + basketBody + `,"customer":{"id":"` + ids[rand.IntN(len(ids))] + `"}}`
			})
		})
	}
}

// BenchmarkGetCustomer: GET /customers/{id} of one of 500 customers, from
// 16 concurrent clients (the reference of BenchmarkEvaluateBasket).
func BenchmarkGetCustomer(b *testing.B) {
	for _, engine := range testenv.Engines() {
		s, ids := rulesSite(b, engine)
		b.Run(engine, func(b *testing.B) {
			s.requests(b, engine, "read", func() (string, string, string) {
				return http.MethodGet, "/customers/" + ids[rand.IntN(len(ids))], ""
			})
		})
	}
}

// requests runs the requests next gives from 16 concurrent clients,
// reporting ops per second and the CPU time of an op.
func (s *benchSite) requests(b *testing.B, engine, op string, next func() (method, path, body string)) {
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((clients + procs - 1) / procs)
	cpu := startCPU(b, engine)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.do(next()); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), op+"s/s")
	cpu.report(b, op)
}
