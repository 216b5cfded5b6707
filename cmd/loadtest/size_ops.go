package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"time"
)

// sizeSmall is the number of customers of the reference business
// (-size-small).
const sizeSmall = 10_000

// sizeSample is how many customers (and windows) the requests of one
// run spread over.
const sizeSample = 500

// sizeSite is one of the two measured businesses.
type sizeSite struct {
	*site
	customers   int       // seeded customers, numbered 1..customers
	perCustomer int       // reward entries of each
	epoch       time.Time // customer n joined at epoch + n seconds
	branch      string    // the main branch, of every seeded entry
}

func (s *sizeSite) joined(n int) time.Time { return s.epoch.Add(time.Duration(n) * time.Second) }

func (s *sizeSite) random(rng *rand.Rand) int { return 1 + rng.IntN(s.customers) }

// window is a filter value selecting the customers joined in [from, to].
func window(from, to time.Time) string {
	return url.QueryEscape("between|" + from.Format(time.RFC3339Nano) + "," + to.Format(time.RFC3339Nano))
}

func filter(op, v string) string { return url.QueryEscape(op + "|" + v) }

// sizeOp is one measured request: its paths over a site (one is picked
// at random per request), and the meta.total each must give (-1: not a
// list, or a total that the measurement itself changes).
type sizeOp struct {
	name    string
	paths   func(s *sizeSite, rng *rand.Rand) string
	matches func(s *sizeSite) int
}

func none(*sizeSite) int { return -1 }

func exactly(n int) func(*sizeSite) int { return func(*sizeSite) int { return n } }

// sizeOps are the measured requests: the spec's customer filters (each
// field, the comparisons and between/in), the business's ledger and a
// customer's history with each of their filters, the offers and a
// customer's offers and coupons. The reward comes last in a pair: its
// entries are the only writes.
var sizeOps = []sizeOp{
	{"read", func(s *sizeSite, r *rand.Rand) string {
		return "/customers/" + sizeID(s.random(r)) + "?include=balance"
	}, none},
	// Every customer: the seeded and the site's own (bootstrap's).
	{"customers", func(*sizeSite, *rand.Rand) string { return "/customers" },
		func(s *sizeSite) int { return s.customers + 1 }},
	{"customers created_at between", func(s *sizeSite, r *rand.Rand) string {
		lo := 1 + r.IntN(s.customers-999)
		return "/customers?created_at=" + window(s.joined(lo), s.joined(lo+999))
	}, exactly(1000)},
	// The oldest 1,000.
	{"customers created_at lt", func(s *sizeSite, _ *rand.Rand) string {
		return "/customers?created_at=" + filter("lt", s.joined(1001).Format(time.RFC3339))
	}, exactly(1000)},
	// The newest 1,000 seeded, and the site's own customer, who joined later.
	{"customers created_at gte", func(s *sizeSite, _ *rand.Rand) string {
		return "/customers?created_at=" + filter("gte", s.joined(s.customers-999).Format(time.RFC3339))
	}, exactly(1001)},
	{"customers updated_at between", func(s *sizeSite, r *rand.Rand) string {
		lo := 1 + r.IntN(s.customers-999)
		return "/customers?updated_at=" + window(s.joined(lo), s.joined(lo+999))
	}, exactly(1000)},
	{"customers updated_at gt", func(s *sizeSite, _ *rand.Rand) string {
		return "/customers?updated_at=" + filter("gt", s.joined(s.customers-1000).Format(time.RFC3339))
	}, exactly(1001)},
	{"customers email eq", func(s *sizeSite, r *rand.Rand) string {
		return "/customers?email=" + filter("eq", fmt.Sprintf("size-%d@example.com", s.random(r)))
	}, exactly(1)},
	{"customers email in", func(s *sizeSite, r *rand.Rand) string {
		var emails []string
		for len(emails) < 10 {
			if e := fmt.Sprintf("size-%d@example.com", s.random(r)); !slices.Contains(emails, e) {
				emails = append(emails, e)
			}
		}
		return "/customers?email=" + filter("in", strings.Join(emails, ","))
	}, exactly(10)},
	{"customers phone eq", func(s *sizeSite, r *rand.Rand) string {
		return "/customers?phone=" + filter("eq", fmt.Sprintf("+1%d", 2122000000+s.random(r)))
	}, exactly(1)},
	{"history", func(s *sizeSite, r *rand.Rand) string {
		return "/customers/" + sizeID(s.random(r)) + "/transactions"
	}, none},
	{"history transaction_type", func(s *sizeSite, r *rand.Rand) string {
		return "/customers/" + sizeID(s.random(r)) + "/transactions?transaction_type=" + filter("eq", "4")
	}, none},
	{"history branch.id", func(s *sizeSite, r *rand.Rand) string {
		return "/customers/" + sizeID(s.random(r)) + "/transactions?branch.id=" + filter("eq", s.branch)
	}, none},
	{"history created_at between", func(s *sizeSite, r *rand.Rand) string {
		n := s.random(r)
		return "/customers/" + sizeID(n) + "/transactions?created_at=" + window(s.joined(n), s.joined(n).Add(time.Second))
	}, func(s *sizeSite) int { return s.perCustomer }},
	// The whole ledger: its total moves with the rewards measured.
	{"transactions", func(*sizeSite, *rand.Rand) string { return "/transactions" }, none},
	// The entries of 100 customers, who joined in a window of 100 s.
	{"transactions created_at between", func(s *sizeSite, r *rand.Rand) string {
		lo := 1 + r.IntN(s.customers-99)
		return "/transactions?created_at=" + window(s.joined(lo), s.joined(lo+99).Add(999*time.Millisecond))
	}, func(s *sizeSite) int { return 100 * s.perCustomer }},
	{"transactions customer.id", func(s *sizeSite, r *rand.Rand) string {
		return "/transactions?customer.id=" + filter("eq", sizeID(s.random(r)))
	}, none},
	{"offers", func(*sizeSite, *rand.Rand) string { return "/offers" }, exactly(sizeOffers)},
	{"customer offers", func(s *sizeSite, r *rand.Rand) string {
		return "/customers/" + sizeID(s.random(r)) + "/offers"
	}, none},
	{"customer coupons", func(s *sizeSite, r *rand.Rand) string {
		return "/customers/" + sizeID(s.random(r)) + "/available-coupons"
	}, none},
	{"reward", nil, none},
}

// sizeOffers is the number of offers each business has; every seeded
// customer holds a coupon of the first.
const sizeOffers = 5
