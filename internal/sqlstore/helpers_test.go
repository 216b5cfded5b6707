package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

var ctx = context.Background()

// eachDB runs fn once per engine, each time on a fresh migrated store.
func eachDB(t *testing.T, fn func(t *testing.T, db *sqlstore.DB)) {
	t.Helper()
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) { fn(t, testenv.Open(t, engine)) })
	}
}

// testBusiness is a created business with what its creation gave.
type testBusiness struct {
	loyalty.CreatedBusiness
	OwnerEmail string
}

// createBusiness creates a stand-alone business (or a coalition member).
func createBusiness(tb testing.TB, db *sqlstore.DB, coalitionID string) testBusiness {
	tb.Helper()
	id := loyalty.NewID()
	n := loyalty.NewBusiness{Name: "Shop " + id[24:], LoyaltyType: loyalty.PerSpend, Country: "US",
		OwnerEmail: "owner-" + id + "@shop.example", OwnerPassword: "unused", CoalitionID: coalitionID}
	cb, err := db.CreateBusiness(ctx, n, "hash-of-"+id, "key-"+id)
	if err != nil {
		tb.Fatalf("CreateBusiness: %v", err)
	}
	return testBusiness{CreatedBusiness: cb, OwnerEmail: n.OwnerEmail}
}

// createCustomer adds a customer through the domain service.
func createCustomer(tb testing.TB, db *sqlstore.DB, businessID string, in loyalty.CustomerInput) loyalty.Customer {
	tb.Helper()
	b, err := db.Business(ctx, businessID)
	if err != nil {
		tb.Fatalf("Business: %v", err)
	}
	svc := loyalty.CustomerService{Store: db}
	c, err := svc.Create(ctx, b, in)
	if err != nil {
		tb.Fatalf("create customer: %v", err)
	}
	return c
}

// wantCode fails the test unless err carries the domain code want.
func wantCode(tb testing.TB, err error, want string) {
	tb.Helper()
	if got := loyalty.ErrorCode(err); got != want {
		tb.Fatalf("error %v has code %q, want %q", err, got, want)
	}
}

// wantInvalid fails the test unless err is EInvalid naming field.
func wantInvalid(tb testing.TB, err error, field string) {
	tb.Helper()
	e, ok := err.(*loyalty.Error)
	if !ok || e.Code != loyalty.EInvalid || len(e.Fields[field]) == 0 {
		tb.Fatalf("error %v (%T), want EInvalid naming %q", err, err, field)
	}
}

// setClock makes every change of db happen at t.
func setClock(db *sqlstore.DB, t time.Time) { db.Clock = func() time.Time { return t } }
