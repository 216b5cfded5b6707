package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// productionOptions are the sizes of the production scenario.
type productionOptions struct {
	businesses, tokens, customers int // tokens per business; customers in all
	seedClients                   int
	readConns, rewardConns        int
	runs                          int
	only                          string // read or reward: that kind of run alone
	// target, when set, is a running deployment to drive instead of an
	// in-process server (targetCA: its certificate's issuer; serverPIDs:
	// its processes, "self" for this one's, to measure).
	target, targetCA string
	serverPIDs       []string
}

// productionScenario measures the service the way a deployment is loaded:
// many businesses, thousands of till tokens signed in by the password
// grant (from as many loopback addresses as the token endpoint's limit per
// client IP asks), tens of thousands of customers created through the API;
// then wrk reads and rewards random customers with random tokens, with the
// rate limits as shipped. Each Loyalty run is followed by a run of the bare
// reference server doing the same SQL; with -runs N the medians are
// reported. A run in which any request answered 429 (or failed) is
// invalid, and so is the report.
func productionScenario(ctx context.Context, dsn string, o options) error {
	p := o.production
	if p.businesses < 1 || p.tokens < 1 || p.customers < p.businesses || p.runs < 1 {
		return fmt.Errorf("production: want at least one business, token and run, and a customer per business")
	}
	if p.only != "" && p.only != "read" && p.only != "reward" {
		return fmt.Errorf("production: -only is read or reward, not %q", p.only)
	}
	sink, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer sink.Close()
	dir, err := os.MkdirTemp("", "loyalty-production")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, srv, stop, err := productionServer(ctx, dsn, dir, sink, p)
	if err != nil {
		return err
	}
	defer stop()
	base := srv.base
	fmt.Printf("engine: %s, scenario: production; %d businesses × %d tokens, %d customers; wrk %d connections (reads), %d (rewards), %s a run, %d run(s)\n",
		a.DB.Dialect(), p.businesses, p.tokens, p.customers, p.readConns, p.rewardConns, o.dur, p.runs)

	tenants, gs, err := seedTenants(ctx, a, srv, p.businesses, p.tokens)
	if err != nil {
		return err
	}
	fmt.Printf("seeded %d tokens by the password grant from %d loopback addresses in %s; 429s waited out: %d\n",
		p.businesses*p.tokens, gs.addresses, gs.took.Round(time.Millisecond), gs.limited)
	st, err := seedCustomers(srv, tenants, p.customers/p.businesses, p.seedClients)
	if err != nil {
		return err
	}
	n := p.customers / p.businesses * p.businesses
	fmt.Printf("seeded %d customers (POST /customers + one reward each, %d clients) in %s: %.0f/s; by tenths: %s; 429s waited out: %d\n",
		n, p.seedClients, st.took.Round(time.Millisecond), float64(n)/st.took.Seconds(), rates(st.tenths), st.limited)

	if p.target == "" {
		took, err := settle(ctx, a)
		if err != nil {
			return err
		}
		fmt.Printf("settled in %s: the welcome e-mails delivered, the events numbered, folded into the dashboard and kept by the tiers\n", took.Round(time.Millisecond))
	}

	var bareBase string
	if p.target == "" {
		bln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		bareSrv := &http.Server{Handler: bareProductionHandler(a), ReadHeaderTimeout: 10 * time.Second}
		go bareSrv.Serve(bln)
		defer bareSrv.Close()
		bareBase = "http://" + bln.Addr().String()
	}
	// PostgreSQL's CPU counts in the figures when it runs on this machine.
	localPG := a.DB.Dialect() == sqlstore.Postgres && onThisMachine(dsn)
	var limited, failed bool
	for _, ph := range []struct {
		mode, what, bare string
		conns            int
		target           string
	}{
		{"read", "GET /customers/{id}?include=balance", "net/http + token SELECT + customer SELECT", p.readConns, "/customers"},
		{"reward", "POST /transactions, reward by amount", "net/http + token SELECT + UPDATE balance, INSERT entry in a transaction", p.rewardConns, "/transactions"},
	} {
		if p.only != "" && p.only != ph.mode {
			continue
		}
		script, err := writeScript(dir, ph.mode, tenants)
		if err != nil {
			return err
		}
		var full, bare []measure
		for range p.runs {
			stop, err := startProfile(ph.mode)
			if err != nil {
				return err
			}
			m, err := runWrk(base+ph.target, script, ph.conns, o.threads, o.dur, srv.pids, localPG)
			stop()
			if err != nil {
				return err
			}
			full = append(full, m)
			if p.target != "" {
				continue // the bare server reads the in-process database
			}
			b, err := runWrk(bareBase+ph.target, script, ph.conns, o.threads, o.dur, []string{"self"}, localPG)
			if err != nil {
				return err
			}
			bare = append(bare, b)
		}
		f := median(full)
		fmt.Printf("%-6s Loyalty  %s\n", ph.mode, f)
		if len(bare) == 0 {
			fmt.Printf("%-6s (no bare reference against -target)   [%s]\n", ph.mode, ph.what)
		} else {
			b := median(bare)
			fmt.Printf("%-6s bare     %s   (%s)\n", ph.mode, b, ph.bare)
			fmt.Printf("%-6s ratio    %.2f× throughput, p99 %.2f× the bare server's, CPU %.2f× per request   [%s]\n",
				ph.mode, f.rps/b.rps, float64(f.p99)/float64(b.p99), float64(f.allCPUPerReq())/float64(max(b.allCPUPerReq(), 1)), ph.what)
		}
		for _, m := range append(full, bare...) {
			limited, failed = limited || m.limited > 0, failed || m.failed > 0
		}
	}
	switch {
	case failed:
		fmt.Println("INVALID: some requests failed (neither 200 nor 429)")
		return errFailedRequests
	case limited:
		fmt.Println("INVALID: some requests answered 429 (the shipped limits: 240 a minute per token); use more tokens (-tokens) or shorter runs (-d)")
		return errRateLimited
	}
	fmt.Println("valid: no request answered 429 or failed")
	return nil
}

// The production scenario's invalid outcomes.
var (
	errRateLimited    = errors.New("invalid run: rate limited")
	errFailedRequests = errors.New("invalid run: requests failed")
)

// productionServer opens the service on dsn and, unless p names a
// target to drive, serves it in this process. The limits are the shipped
// ones (Config.Limits zero); logs are written as the service writes them,
// to sink; the outbox delivers the welcome e-mails to files under dir (a
// target's instances deliver their own).
func productionServer(ctx context.Context, dsn, dir string, sink *os.File, p productionOptions) (*app.App, server, func(), error) {
	cfg := app.Config{DB: dsn, DataDir: filepath.Join(dir, "data"), Logger: slog.New(slog.NewJSONHandler(sink, nil)), NoOutbox: p.target != ""}
	a, err := app.Open(ctx, cfg)
	if err != nil {
		return nil, server{}, nil, err
	}
	if p.target != "" {
		srv := server{base: strings.TrimRight(p.target, "/"), pids: p.serverPIDs}
		if p.targetCA != "" {
			pem, err := os.ReadFile(p.targetCA)
			if err != nil {
				a.Close()
				return nil, server{}, nil, err
			}
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(pem)
			srv.tls = &tls.Config{RootCAs: pool}
		}
		return a, srv, func() { a.Close() }, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		return nil, server{}, nil, err
	}
	sctx, stop := context.WithCancel(ctx)
	go a.Serve(sctx, ln)
	return a, server{base: "http://" + ln.Addr().String(), pids: []string{"self"}}, func() { stop(); a.Close() }, nil
}

// server is where the load goes: its base URL, the TLS settings to reach
// it, and its processes (pids or pid files; "self" for this one).
type server struct {
	base string
	tls  *tls.Config
	pids []string
}

// median is the run with the median throughput.
func median(ms []measure) measure {
	s := slices.Clone(ms)
	slices.SortFunc(s, func(a, b measure) int {
		switch {
		case a.rps < b.rps:
			return -1
		case a.rps > b.rps:
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}

// onThisMachine reports whether every host of a PostgreSQL URL is this
// machine: a loopback address or a Unix socket.
func onThisMachine(dsn string) bool {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return false
	}
	hosts := []string{cfg.Host}
	for _, f := range cfg.Fallbacks {
		hosts = append(hosts, f.Host)
	}
	for _, h := range hosts {
		ip := net.ParseIP(h)
		if !strings.HasPrefix(h, "/") && h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return false
		}
	}
	return true
}

// rates shows rates per second, rounded.
func rates(rs []float64) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%.0f", r)
	}
	return b.String()
}

// startProfile starts a CPU profile of this process's full-stack run of
// the phase, written to -cpuprofile with the phase's name before the
// extension (prof.reward.out for prof.out); it returns the stopper.
func startProfile(phase string) (func(), error) {
	if cpuProfile == "" {
		return func() {}, nil
	}
	ext := filepath.Ext(cpuProfile)
	f, err := os.Create(strings.TrimSuffix(cpuProfile, ext) + "." + phase + ext)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// settle waits until the seeding's aftermath is done — the outbox holds
// no due message, no event waits for its number, and no business's
// dashboard or tier keeper is behind its feed — so that a measured run pays for its own
// requests' background work and not for a backlog of the seeding's.
func settle(ctx context.Context, a *app.App) (time.Duration, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	for {
		due, err := a.DB.DueMessages(ctx, time.Now(), 1)
		if err != nil {
			return 0, err
		}
		unnumbered, err := a.DB.UnsequencedBusinesses(ctx, 1)
		if err != nil {
			return 0, err
		}
		// Behind whoever holds the cursors (the followers keep their leases).
		var behind int
		if err := a.DB.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM event_sequences s
			JOIN (SELECT $1 AS destination UNION ALL SELECT $2) d ON TRUE
			LEFT JOIN event_cursors c ON c.destination = d.destination AND c.business_id = s.business_id
			WHERE s.last_seq > COALESCE(c.last_seq, 0)`, loyalty.DashboardDestination, events.TierDestination).Scan(&behind); err != nil {
			return 0, err
		}
		if len(due)+len(unnumbered)+behind == 0 {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("settling: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
