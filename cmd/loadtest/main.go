// Command loadtest measures the service under load with wrk (from Debian's
// wrk package): it starts Loyalty in-process on a fresh database, creates a
// business, an app, a token and a customer, and runs a scenario:
//
//	read     GET /customers/{id}?include=balance; with -bare also a bare
//	         net/http server doing the same two queries (token, customer)
//	reward   POST /transactions, a reward by amount for one of 500
//	         customers; with -bare (PostgreSQL) also the plainest
//	         transaction a reward needs, without HTTP
//	history  page 1 of GET /customers/{id}/transactions for a customer with
//	         100 entries and for one with -entries entries
//	size     reward, read, history page 1, customer list page 1 and a
//	         filtered customer list at 10,000 customers and again after
//	         growing the business to -size-customers customers with
//	         -per-customer entries each (seeded in SQL)
//	migrate  how long each migration of this tree holds up rewards: on a
//	         PostgreSQL schema at the previous release's last migration
//	         (deploy/previous-release), seeded as the size scenario seeds
//	         (-size-customers, -per-customer), the previous release's binary
//	         (built from the repository's history, or -serve-bin) serves
//	         -migrate-clients reward clients while the migrations are
//	         applied one at a time; a table of each one's time and the
//	         longest gap between rewards over it (migrate.go)
//	production
//	         a production-shaped load (productionScenario): -businesses
//	         businesses, -tokens tokens each signed in by the password grant
//	         from several loopback addresses, -customers customers created
//	         through the API; then wrk reads (-c connections) and rewards
//	         (-reward-c) random customers with random tokens, under the
//	         shipped rate limits (any 429 makes the run invalid), each run
//	         followed by a bare net/http server doing the same SQL; -runs N
//	         reports medians. It reports requests per second, p50/p99, CPU
//	         per request and peak memory of the serving process
//
// It prints a report of requests per second, latency and peak memory.
//
// The production scenario at full size (minutes) and a small run (under a
// minute):
//
//	go run ./cmd/loadtest -scenario production -businesses 100 -tokens 20 -customers 50000 -d 10s -runs 3
//	go run ./cmd/loadtest -scenario production -businesses 5 -tokens 80 -customers 2000 -d 3s
//
// add -db postgres://... for PostgreSQL. Against the three instances of
// deploy/local-cluster.sh, behind HAProxy (no bare runs then; CPU and
// memory are the instances'):
//
//	. /tmp/loyalty-cluster/cluster.env
//	go run ./cmd/loadtest -scenario production -target $URL -target-ca $CA_CERT -db "$DB" \
//	  -server-pids /tmp/loyalty-cluster/loyalty1.pid,/tmp/loyalty-cluster/loyalty2.pid,/tmp/loyalty-cluster/loyalty3.pid
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver, to create the run's schema
)

func main() {
	dsn := flag.String("db", "", "database (postgres:// URL or SQLite file); default a SQLite file in a temp dir")
	conns := flag.Int("c", 64, "concurrent connections")
	threads := flag.Int("t", 2, "wrk threads")
	dur := flag.Duration("d", 10*time.Second, "duration of each run")
	bare := flag.Bool("bare", false, "read: also a bare net/http server doing the same queries; reward: also a bare insert+update transaction")
	scenario := flag.String("scenario", "read", "read, reward, history, size, migrate or production")
	entries := flag.Int("entries", 100_000, "history scenario: entries of the long history")
	sizeCustomers := flag.Int("size-customers", 1_000_000, "size scenario: customers of the business at full size")
	perCustomer := flag.Int("per-customer", 10, "size scenario: ledger entries of each seeded customer")
	sizeSmallFlag := flag.Int("size-small", sizeSmall, "size scenario: customers of the reference business")
	pairs := flag.Int("pairs", 8, "size scenario: alternating pairs of runs (10,000 customers, then -size-customers, the order swapped every pair)")
	sizeOnly := flag.String("ops", "", "size scenario: measure only the requests whose name matches this regular expression")
	outDir := flag.String("out", os.TempDir(), "size scenario: directory of the figures file (Go benchmark format, for benchstat)")
	serveBin := flag.String("serve-bin", "", "migrate: the loyalty binary serving rewards during the migrations (default: the previous release's, built from deploy/previous-release)")
	migrateFrom := flag.Int64("migrate-from", 0, "migrate: the migration the schema starts at (default: the previous release's last)")
	migrateClients := flag.Int("migrate-clients", 12, "migrate: reward clients, each with a token of its own")
	migrateInterval := flag.Duration("migrate-interval", 300*time.Millisecond, "migrate: time between the rewards of a client (a token may make 240 requests a minute)")
	flag.BoolVar(&keepData, "keep", false, "keep the run's databases (PostgreSQL schemas, SQLite files) and say where they are")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the full-stack run to this file")
	var p productionOptions
	flag.IntVar(&p.businesses, "businesses", 100, "production: businesses")
	flag.IntVar(&p.tokens, "tokens", 20, "production: tokens per business (password grants)")
	flag.IntVar(&p.customers, "customers", 50_000, "production: customers in all, shared evenly by the businesses")
	flag.IntVar(&p.seedClients, "seed-clients", 32, "production: concurrent clients creating the customers")
	flag.IntVar(&p.rewardConns, "reward-c", 16, "production: wrk connections of the reward runs (-c: of the read runs)")
	flag.IntVar(&p.runs, "runs", 1, "production: runs of each kind, interleaved with the bare server's; the medians are reported")
	flag.StringVar(&p.only, "only", "", "production: run only this kind (read or reward)")
	flag.StringVar(&p.target, "target", "", "production: drive a running deployment at this URL (e.g. HAProxy of deploy/local-cluster.sh) instead of an in-process server; -db is its database, for creating the businesses; no bare runs")
	flag.StringVar(&p.targetCA, "target-ca", "", "production: PEM certificate the -target's TLS certificate is checked against")
	serverPIDs := flag.String("server-pids", "", "production with -target: the serving processes (pids or pid files, comma-separated) whose CPU and peak memory to report")
	flag.Parse()
	if *serverPIDs != "" {
		p.serverPIDs = strings.Split(*serverPIDs, ",")
	}
	cpuProfile = *profile
	p.readConns = *conns
	opts := options{conns: *conns, threads: *threads, dur: *dur, bare: *bare, scenario: *scenario, entries: *entries,
		customers: *sizeCustomers, perCustomer: *perCustomer, pairs: *pairs, small: *sizeSmallFlag, outDir: *outDir, sizeOnly: *sizeOnly, production: p, serveBin: *serveBin, migrateFrom: *migrateFrom,
		migrateClients: *migrateClients, migrateInterval: *migrateInterval}
	if err := run(*dsn, opts); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// options are the flags of a run.
type options struct {
	conns, threads int
	dur            time.Duration
	bare           bool
	scenario       string
	entries        int
	customers      int    // size scenario
	perCustomer    int    // size scenario
	pairs          int    // size scenario: alternating pairs
	small          int    // size scenario: customers of the reference business
	outDir         string // size scenario: where its figures go
	sizeOnly       string // size scenario: the requests measured (a regular expression)
	production     productionOptions
	// migrate scenario
	serveBin        string
	migrateFrom     int64
	migrateClients  int
	migrateInterval time.Duration
}

func run(dsn string, o options) error {
	conns, threads, dur := o.conns, o.threads, o.dur
	ctx := context.Background()
	if o.scenario == "production" && o.production.target != "" {
		if dsn == "" {
			return fmt.Errorf("-target needs -db: the deployment's database, to create the businesses in")
		}
		defer reportCatalog(ctx, dsn)()
		return productionScenario(ctx, dsn, o)
	}
	if dsn == "" {
		dir, err := os.MkdirTemp("", "loyalty-load")
		if err != nil {
			return err
		}
		dsn = filepath.Join(dir, "loyalty.db")
		defer removeUnlessKept(dir)
	}
	given := dsn // the size scenario makes a second database beside it
	if strings.HasPrefix(dsn, "postgres") {
		// A bloated catalog slows the run: said before it and after.
		defer reportCatalog(ctx, dsn)()
		// A private schema keeps the run's data out of the database's own
		// tables, and is dropped at the end.
		scoped, drop, err := privateSchema(ctx, dsn)
		if err != nil {
			return err
		}
		defer drop()
		dsn = scoped
	}
	if o.scenario == "production" {
		return productionScenario(ctx, dsn, o)
	}
	if o.scenario == "migrate" {
		return migrateScenario(ctx, dsn, o)
	}
	st, err := startSite(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.close()
	a, base, key, token, customerID := st.app, st.base, st.key, st.token, st.customer
	fmt.Printf("engine: %s, scenario: %s, connections: %d, duration: %s\n", a.DB.Dialect(), o.scenario, conns, dur)
	switch o.scenario {
	case "reward":
		return rewardScenario(ctx, a, base, key, token, customerID, o)
	case "history":
		return historyScenario(ctx, a, base, key, token, o)
	case "size":
		return sizeScenario(ctx, st, given, o)
	case "read":
	default:
		return fmt.Errorf("unknown scenario %q", o.scenario)
	}
	bare := o.bare
	target := base + "/customers/" + customerID + "?include=balance"
	if err := check(target, key, token); err != nil {
		return err
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
	}
	full, err := wrk(target, key, token, conns, threads, dur, "")
	if err != nil {
		return err
	}
	if cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	fmt.Printf("full stack  GET /customers/{id}?include=balance: %s\n", full)
	fmt.Printf("peak resident memory of the process: %s\n", peakRSS())
	if bare {
		bln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: bareHandler(a)}
		go srv.Serve(bln)
		defer srv.Close()
		btarget := "http://" + bln.Addr().String() + "/customers/" + customerID
		res, err := wrk(btarget, key, token, conns, threads, dur, "")
		if err != nil {
			return err
		}
		fmt.Printf("bare net/http, same two queries:               %s\n", res)
	}
	return nil
}
