package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestSeedTenantsSpreadsGrants: more tokens than the token endpoint gives
// one client IP a minute (60) are signed in without a single 429, from
// as many loopback source addresses as grantsPerAddress asks.
func TestSeedTenantsSpreadsGrants(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := app.Open(ctx, app.Config{DB: filepath.Join(dir, "loyalty.db"), DataDir: dir,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go a.Serve(sctx, ln)

	// Were every grant from one address, the 61st would wait a minute for
	// its 429 to pass; the test's deadline stops that early.
	done := make(chan struct{})
	var tenants []*tenant
	var gs grantStats
	go func() {
		defer close(done)
		tenants, gs, err = seedTenants(ctx, a, server{base: "http://" + ln.Addr().String()}, 2, 40)
	}()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		t.Fatal("80 password grants took over 45 s: the token endpoint's limit per IP held them back")
	}
	if err != nil {
		t.Fatal(err)
	}
	if gs.addresses != 2 || gs.limited != 0 {
		t.Errorf("grants from %d addresses, %d answered 429; want 2 addresses and none", gs.addresses, gs.limited)
	}
	seen := map[string]bool{}
	for _, tn := range tenants {
		if len(tn.tokens) != 40 {
			t.Errorf("business %s: %d tokens, want 40", tn.id, len(tn.tokens))
		}
		for _, tok := range tn.tokens {
			seen[tok] = true
		}
	}
	if len(seen) != 80 {
		t.Errorf("%d distinct tokens, want 80", len(seen))
	}
}

// TestProductionScenarioSmall runs the whole production scenario, tiny,
// on SQLite: seeding through the API, wrk with the random token and
// customer script against Loyalty and the bare server, and a report in
// which every request was answered 200 — or 429: on a fast machine even
// two connections for a second may pass sixty tokens' budget, which the
// report must then call invalid.
func TestProductionScenarioSmall(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("needs wrk (apt-get install wrk)")
	}
	o := options{threads: 1, dur: time.Second, scenario: "production", production: productionOptions{
		businesses: 2, tokens: 30, customers: 40, seedClients: 4, readConns: 2, rewardConns: 2, runs: 1}}
	err := productionScenario(context.Background(), testenv.DSN(t, sqlstore.SQLite), o)
	if err != nil && !errors.Is(err, errRateLimited) {
		t.Fatal(err)
	}
}

// TestOnThisMachine: PostgreSQL's CPU is added to the report only when
// every host of the URL is this machine.
func TestOnThisMachine(t *testing.T) {
	for dsn, want := range map[string]bool{
		"postgres://postgres@127.0.0.1:5432/test":                          true,
		"postgres://postgres@localhost/test":                               true,
		"postgres://postgres@[::1]:5432/test":                              true,
		"postgres:///test?host=/var/run/postgresql":                        true,
		"postgres://postgres@127.0.0.1:5432,127.0.0.1:5433/test":           true,
		"postgres://postgres@db.example:5432/test":                         false,
		"postgres://postgres@127.0.0.1:5432,10.0.0.7:5432/test":            false,
		"postgres://postgres@127.0.0.1:5432/test?connect_timeout=nonsense": false,
	} {
		if got := onThisMachine(dsn); got != want {
			t.Errorf("onThisMachine(%q) = %v, want %v", dsn, got, want)
		}
	}
}
