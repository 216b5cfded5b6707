package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// The migrate scenario measures how long each migration of this tree
// holds up rewards, as a rolling upgrade runs it (docs/operations.md,
// Upgrading): on a PostgreSQL schema at the previous release's last
// migration, grown to -size-customers customers with -per-customer
// entries each (the size scenario's seeding), the previous release's
// binary serves a steady reward load while this tree's migrations are
// applied one at a time. For each it reports how long it took and the
// stall: the longest gap between two consecutive successful rewards over
// the migration (from the last reward before it began to the first after
// it ended), beside the longest gap of the same load with no migration.

// migrateConfig is what a stall measurement runs.
type migrateConfig struct {
	dsn         string // a PostgreSQL schema of its own, empty
	bin         string // the binary serving during the migrations (previous release)
	from        int64  // the schema bin expects; the migrations after it are measured
	customers   int
	perCustomer int
	clients     int           // reward clients, each with its own token
	interval    time.Duration // between the rewards of a client (under a token's limit)
	settle      time.Duration // load with no migration: before the first, and between them
	logf        func(string, ...any)
}

// migrationStall is what one migration (or none) did to the rewards.
type migrationStall struct {
	name    string
	took    time.Duration
	stall   time.Duration // the longest gap between successive rewards over it
	rewards int           // rewards acknowledged during it
	failed  int           // rewards refused or unanswered during it
}

// rewardLog is when rewards were acknowledged, and when they failed.
type rewardLog struct {
	mu     sync.Mutex
	ok     []time.Time
	failed []time.Time
	errs   map[string]int // what failed, by kind
}

func (l *rewardLog) add(ok bool, at time.Time, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ok {
		l.ok = append(l.ok, at)
		return
	}
	l.failed = append(l.failed, at)
	if l.errs == nil {
		l.errs = map[string]int{}
	}
	l.errs[why]++
}

// window is what the rewards did between from and to: the longest gap
// between consecutive acknowledgements from the last one before from to
// the first one after to.
func (l *rewardLog) window(from, to time.Time) (stall time.Duration, rewards, failed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ok := slices.Clone(l.ok)
	slices.SortFunc(ok, func(a, b time.Time) int { return a.Compare(b) })
	lo, _ := slices.BinarySearchFunc(ok, from, func(a, b time.Time) int { return a.Compare(b) })
	hi, _ := slices.BinarySearchFunc(ok, to, func(a, b time.Time) int { return a.Compare(b) })
	rewards = hi - lo
	lo = max(lo-1, 0)
	hi = min(hi, len(ok)-1)
	for i := lo; i < hi; i++ {
		stall = max(stall, ok[i+1].Sub(ok[i]))
	}
	if len(ok) == 0 || ok[len(ok)-1].Before(to) {
		// No reward since: the stall lasts at least until now.
		since := lastOr(ok, from)
		if since.Before(from) {
			since = from
		}
		stall = max(stall, time.Since(since))
	}
	for _, f := range l.failed {
		if !f.Before(from) && !f.After(to) {
			failed++
		}
	}
	return stall, rewards, failed
}

func lastOr(ts []time.Time, or time.Time) time.Time {
	if len(ts) == 0 {
		return or
	}
	return ts[len(ts)-1]
}

// measureMigrations runs the measurement and returns a row per
// migration, the first for none.
func measureMigrations(ctx context.Context, cfg migrateConfig) ([]migrationStall, error) {
	logf := cfg.logf
	db, err := sqlstore.Open(ctx, cfg.dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.MigrateTo(ctx, cfg.from); err != nil {
		return nil, fmt.Errorf("migrate to %d: %w", cfg.from, err)
	}
	all, err := sqlstore.Migrations(sqlstore.Postgres)
	if err != nil {
		return nil, err
	}
	var pending []sqlstore.MigrationFile
	for _, m := range all {
		if m.Version > cfg.from {
			pending = append(pending, m)
		}
	}
	if len(pending) == 0 {
		return nil, fmt.Errorf("no migration after %d", cfg.from)
	}

	dataDir, err := os.MkdirTemp("", "loyalty-migrate")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dataDir)
	cli := func(args ...string) (map[string]any, error) {
		cmd := exec.CommandContext(ctx, cfg.bin, append(append([]string{"--db", cfg.dsn, "--data-dir", dataDir}, args...), "--json")...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("loyalty %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		var out map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			return nil, fmt.Errorf("loyalty %s printed %q: %v", strings.Join(args, " "), stdout.String(), err)
		}
		return out, nil
	}
	if _, err := cli("migrate"); err != nil {
		return nil, err
	}
	owner, password := "owner@migrate.example", "migrate-pass-2026"
	biz, err := cli("admin", "business", "create", "--name", "Migrate Cafe", "--loyalty-type", "per_spend",
		"--owner-email", owner, "--owner-password", password)
	if err != nil {
		return nil, err
	}
	ap, err := cli("admin", "app", "create", "--name", "Till", "--api", "business", "--grant", "password", "--approve")
	if err != nil {
		return nil, err
	}
	businessID, key := fmt.Sprint(biz["business_id"]), fmt.Sprint(biz["application_key"])
	var branch string
	if err := db.SQL().QueryRowContext(ctx, `SELECT id FROM branches WHERE business_id = $1 AND is_main`, businessID).Scan(&branch); err != nil {
		return nil, err
	}
	start := time.Now()
	base := time.Now().UTC().Add(-time.Duration(cfg.customers+1) * time.Second).Truncate(time.Second)
	if err := seedSize(ctx, db.SQL(), true, businessID, branch, base, 0, cfg.customers, cfg.perCustomer); err != nil {
		return nil, err
	}
	logf("seeded %d customers with %d entries each in %s; database %s", cfg.customers, cfg.perCustomer,
		time.Since(start).Round(time.Second), schemaSize(ctx, db))

	srv, err := startBinary(ctx, cfg.bin, "--db", cfg.dsn, "--data-dir", dataDir)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.clients}}
	var tokens []string
	for range cfg.clients {
		tok, err := grant(hc, srv.base, key, fmt.Sprint(ap["client_id"]), fmt.Sprint(ap["client_secret"]), owner, password)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, tok)
	}

	var log rewardLog
	lctx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	began := time.Now()
	for c, tok := range tokens {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 35))
			// The clients take turns, evenly spread over an interval.
			next := began.Add(time.Duration(c) * cfg.interval / time.Duration(len(tokens)))
			time.Sleep(time.Until(next))
			for lctx.Err() == nil {
				body := fmt.Sprintf(`{"intent":"reward","amount":12.50,"customer":{"id":"%s"}}`, sizeID(1+rng.IntN(cfg.customers)))
				ok, why := reward(lctx, hc, srv.base, key, tok, body)
				if lctx.Err() != nil {
					return
				}
				log.add(ok, time.Now(), why)
				// The next turn of this client: after a stall, the
				// turns it missed are skipped, not made up.
				next = next.Add(cfg.interval)
				for now := time.Now(); !next.After(now); {
					next = next.Add(cfg.interval)
				}
				select {
				case <-lctx.Done():
				case <-time.After(time.Until(next)):
				}
			}
		})
	}
	defer func() {
		stopLoad()
		wg.Wait()
	}()

	sleep := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	if err := sleep(cfg.settle); err != nil { // warm-up
		return nil, err
	}
	idle := time.Now()
	if err := sleep(cfg.settle); err != nil {
		return nil, err
	}
	stall, n, failed := log.window(idle, time.Now())
	rows := []migrationStall{{name: "none", took: time.Since(idle), stall: stall, rewards: n, failed: failed}}
	logf("%-26s %s", "none:", rows[0])
	for _, m := range pending {
		from := time.Now()
		err := db.MigrateTo(ctx, m.Version)
		to := time.Now()
		if err != nil {
			return rows, fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if err := sleep(cfg.settle); err != nil {
			return rows, err
		}
		stall, n, failed := log.window(from, to)
		rows = append(rows, migrationStall{name: m.Name, took: to.Sub(from), stall: stall, rewards: n, failed: failed})
		logf("%-26s %s", m.Name+":", rows[len(rows)-1])
	}
	stopLoad()
	wg.Wait()
	if len(log.errs) > 0 {
		logf("failed rewards by kind: %v", log.errs)
	}
	if v, err := db.MigrationVersion(ctx); err != nil || v != pending[len(pending)-1].Version {
		return rows, fmt.Errorf("schema at %d after the migrations (%v)", v, err)
	}
	return rows, nil
}

func (m migrationStall) String() string {
	return fmt.Sprintf("took %8s, longest gap between rewards %7s, %5d rewards, %d failed",
		m.took.Round(time.Millisecond), m.stall.Round(time.Millisecond), m.rewards, m.failed)
}

// migrateScenario prints the measurement as a table.
func migrateScenario(ctx context.Context, dsn string, o options) error {
	if !strings.HasPrefix(dsn, "postgres") {
		return errors.New("the migrate scenario needs -db postgres://...: migrations run while instances serve on PostgreSQL only")
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	bin := o.serveBin
	from := o.migrateFrom
	if bin == "" || from == 0 {
		commit, err := testenv.PreviousRelease(root)
		if err != nil {
			return err
		}
		if from == 0 {
			if from, err = testenv.ReleaseBaseline(ctx, root, commit); err != nil {
				return err
			}
		}
		if bin == "" {
			if bin, err = testenv.BuildRelease(ctx, root, commit, logLine); err != nil {
				return err
			}
		}
	}
	fmt.Printf("engine: postgres, scenario: migrate, %d customers × %d entries, %d reward clients every %s, from migration %d\n",
		o.customers, o.perCustomer, o.migrateClients, o.migrateInterval, from)
	rows, err := measureMigrations(ctx, migrateConfig{dsn: dsn, bin: bin, from: from, customers: o.customers,
		perCustomer: o.perCustomer, clients: o.migrateClients, interval: o.migrateInterval, settle: 5 * time.Second, logf: logLine})
	fmt.Println()
	fmt.Println("| migration | took | longest gap between rewards | rewards meanwhile | failed |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, r := range rows {
		name := r.name
		if name == "none" {
			name = "none (the same load, 5 s)"
		}
		fmt.Printf("| %s | %s | %s | %d | %d |\n", name, r.took.Round(10*time.Millisecond), r.stall.Round(time.Millisecond), r.rewards, r.failed)
	}
	return err
}

func logLine(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// schemaSize is the size of the schema's tables and indexes.
func schemaSize(ctx context.Context, db *sqlstore.DB) string {
	var n int64
	if err := db.SQL().QueryRowContext(ctx, `SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c
		JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = current_schema() AND c.relkind = 'r'`).Scan(&n); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// grant signs the owner in by the password grant.
func grant(hc *http.Client, base, key, client, secret, owner, password string) (string, error) {
	form := url.Values{"grant_type": {"password"}, "client_id": {client}, "client_secret": {secret},
		"username": {owner}, "password": {password}, "scope": {"admin"}, "application_key": {key}}
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Application-Key", key)
	var out struct {
		AccessToken string `json:"access_token"`
	}
	status, _, err := send(hc, req, &out)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("password grant: status %d", status)
	}
	return out.AccessToken, nil
}

// reward posts one reward; why says what failed.
func reward(ctx context.Context, hc *http.Client, base, key, tok, body string) (ok bool, why string) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/transactions", strings.NewReader(body))
	req.Header.Set("X-Application-Key", key)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false, "no answer"
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Sprintf("%d %s", resp.StatusCode, bytes.TrimSpace(raw[:min(len(raw), 200)]))
	}
	return true, ""
}
