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
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver, to create the run's schema

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

func main() {
	dsn := flag.String("db", "", "database (postgres:// URL or SQLite file); default a SQLite file in a temp dir")
	conns := flag.Int("c", 64, "concurrent connections")
	threads := flag.Int("t", 2, "wrk threads")
	dur := flag.Duration("d", 10*time.Second, "duration of each run")
	bare := flag.Bool("bare", false, "read: also a bare net/http server doing the same queries; reward: also a bare insert+update transaction")
	scenario := flag.String("scenario", "read", "read, reward, history, size or production")
	entries := flag.Int("entries", 100_000, "history scenario: entries of the long history")
	sizeCustomers := flag.Int("size-customers", 1_000_000, "size scenario: customers of the business at full size")
	perCustomer := flag.Int("per-customer", 10, "size scenario: ledger entries of each seeded customer")
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
		customers: *sizeCustomers, perCustomer: *perCustomer, production: p}
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
	customers      int // size scenario
	perCustomer    int // size scenario
	production     productionOptions
}

func run(dsn string, o options) error {
	conns, threads, dur := o.conns, o.threads, o.dur
	ctx := context.Background()
	if o.scenario == "production" && o.production.target != "" {
		if dsn == "" {
			return fmt.Errorf("-target needs -db: the deployment's database, to create the businesses in")
		}
		return productionScenario(ctx, dsn, o)
	}
	if dsn == "" {
		dir, err := os.MkdirTemp("", "loyalty-load")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dsn = filepath.Join(dir, "loyalty.db")
	}
	if strings.HasPrefix(dsn, "postgres") {
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
		return sizeScenario(ctx, st, o)
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

// site is the service a run drives: serving on loopback at base, with a
// business, an app, an owner token and one customer.
type site struct {
	app        *app.App
	base       string
	key, token string
	customer   string
	close      func()
}

// startSite opens the service on dsn as a run needs it — the limit of the
// one token the load comes from lifted (the run measures the stack, not
// the 429 path), one JSON log line per request written, as the service
// does, to a sink — bootstraps it and serves it.
func startSite(ctx context.Context, dsn string) (*site, error) {
	limits := httpapi.DefaultLimits
	limits.Business = 1 << 30
	sink, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	// The outbox's files and images go to a directory of the run's own,
	// not to ./data wherever the command or a benchmark runs.
	dir, err := os.MkdirTemp("", "loyalty-loadtest")
	if err != nil {
		sink.Close()
		return nil, err
	}
	a, err := app.Open(ctx, app.Config{DB: dsn, DataDir: dir, Logger: slog.New(slog.NewJSONHandler(sink, nil)), Limits: limits})
	if err != nil {
		sink.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	sctx, stop := context.WithCancel(ctx)
	st := &site{app: a, close: func() { stop(); a.Close(); sink.Close(); os.RemoveAll(dir) }}
	if st.key, st.token, st.customer, err = bootstrap(ctx, a); err != nil {
		st.close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.close()
		return nil, err
	}
	go a.Serve(sctx, ln)
	st.base = "http://" + ln.Addr().String()
	return st, nil
}

// bootstrap creates a business, an approved app, an owner token and one
// customer, and returns the key, the token and the customer id.
func bootstrap(ctx context.Context, a *app.App) (string, string, string, error) {
	b, err := a.Admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Load", LoyaltyType: loyalty.PerSpend,
		OwnerEmail: fmt.Sprintf("load-%d@example.com", time.Now().UnixNano()), OwnerPassword: "load-test-password"})
	if err != nil {
		return "", "", "", err
	}
	ap, err := a.OAuth.CreateApp(ctx, oauth.NewApp{Name: "load", API: oauth.APIBusiness, GrantType: oauth.GrantPassword, Approve: true})
	if err != nil {
		return "", "", "", err
	}
	tenant, err := a.DB.Tenant(ctx, b.ApplicationKey)
	if err != nil {
		return "", "", "", err
	}
	owner, err := a.DB.Account(ctx, b.BusinessID, b.OwnerID)
	if err != nil {
		return "", "", "", err
	}
	tok, err := a.OAuth.Token(ctx, oauth.TokenRequest{GrantType: oauth.GrantPassword, ClientID: ap.ClientID, ClientSecret: ap.ClientSecret,
		Username: owner.Owner.Email, Password: "load-test-password", Scope: oauth.ScopeAdmin, Tenant: tenant,
		AppKeyForm: b.ApplicationKey, BusinessIDs: []string{b.BusinessID}})
	if err != nil {
		return "", "", "", err
	}
	cs := &loyalty.CustomerService{Store: a.DB}
	c, err := cs.Create(ctx, loyalty.Business{ID: b.BusinessID, Country: "US"}, loyalty.CustomerInput{Email: loyalty.Some("load@example.com")})
	if err != nil {
		return "", "", "", err
	}
	return b.ApplicationKey, tok.AccessToken, c.ID, nil
}

// check makes one request and insists on a 200.
func check(target, key, token string) error {
	req, _ := http.NewRequest("GET", target, nil)
	req.Header.Set("X-Application-Key", key)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("warm-up request: %d %s", resp.StatusCode, body)
	}
	return nil
}

var cpuProfile string

var reqsRe = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
var latRe = regexp.MustCompile(`Latency\s+(\S+)\s+(\S+)\s+(\S+)`)
var errRe = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)

// wrk runs wrk against target (with a Lua script, if given) and
// summarises its output.
func wrk(target, key, token string, conns, threads int, dur time.Duration, script string) (string, error) {
	args := []string{"-t", fmt.Sprint(threads), "-c", fmt.Sprint(conns), "-d", dur.String(),
		"-H", "X-Application-Key: " + key, "-H", "Authorization: Bearer " + token}
	if script != "" {
		args = append(args, "-s", script)
	}
	cmd := exec.Command("wrk", append(args, target)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("wrk (apt-get install wrk): %v: %s", err, out)
	}
	s := string(out)
	rps := reqsRe.FindStringSubmatch(s)
	lat := latRe.FindStringSubmatch(s)
	if rps == nil || lat == nil {
		return "", fmt.Errorf("unexpected wrk output: %s", s)
	}
	res := fmt.Sprintf("%s req/s, latency avg %s stdev %s max %s", rps[1], lat[1], lat[2], lat[3])
	if e := errRe.FindStringSubmatch(s); e != nil {
		res += ", NON-2xx: " + e[1]
	}
	return res, nil
}

// bareHandler answers GET /customers/{id} with the token lookup and the
// customer read alone: no key check, limiter, logging or metrics.
func bareHandler(a *app.App) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		t, err := a.DB.Access(r.Context(), a.Hasher.Token(tok))
		if err != nil {
			http.Error(w, err.Error(), 401)
			return
		}
		c, err := a.DB.Customer(r.Context(), t.BusinessID, r.PathValue("id"))
		if err != nil {
			http.Error(w, err.Error(), 404)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"id": c.ID, "email": c.Email,
			"balance": map[string]any{"points": c.Balance.Points, "giftcard": c.Balance.Giftcard}}})
	})
	return mux
}

// peakRSS reads the process's peak resident memory from /proc.
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(sc.Text(), "VmHWM:"))
		}
	}
	return "unknown"
}

// privateSchema creates a schema for this run and returns a DSN that uses
// it, and a function that drops it.
func privateSchema(ctx context.Context, dsn string) (string, func(), error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return "", nil, err
	}
	schema := fmt.Sprintf("loadtest_%d", time.Now().UnixNano())
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		return "", nil, err
	}
	drop := func() {
		db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		db.Close()
	}
	u, err := url.Parse(dsn)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
