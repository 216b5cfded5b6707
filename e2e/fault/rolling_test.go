package fault

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestRollingUpgrade upgrades a PostgreSQL deployment from the previous
// release (deploy/previous-release, built from the repository's history)
// to this tree's binary under load, as docs/operations.md's Upgrading
// says: two instances of the previous release serve while eight clients
// reward and redeem points, each operation with its own Idempotency-Key,
// sent to the instances in turn and retried on another until it gets an
// answer; this tree's `loyalty migrate` runs meanwhile; an instance of this
// tree starts and one of the previous release is stopped, then another
// starts and the last old one is killed (SIGKILL: the fault); then
// `loyalty migrate --resync-summaries`. At the end, for every customer,
// the balance this tree's API shows = the sum of its ledger = the sum of
// the operations acknowledged, no Idempotency-Key wrote more than one
// entry, no reward failed for want of an instance, and every customer's
// summary (visits, spend) agrees with its ledger.
func TestRollingUpgrade(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("rolling upgrades are for PostgreSQL; LOYALTY_TEST_POSTGRES=off")
	}
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	commit, err := testenv.PreviousRelease(root)
	if err != nil {
		t.Fatal(err)
	}
	oldBin, err := testenv.BuildRelease(ctx, root, commit, t.Logf)
	if errors.Is(err, testenv.ErrNoHistory) && os.Getenv("CI") == "" {
		t.Skipf("%v: a full clone is needed", err)
	} else if err != nil {
		t.Fatal(err)
	}
	newBin := testenv.BuildLoyalty(t)
	dsn := testenv.DSN(t, sqlstore.Postgres)
	dataDir := t.TempDir()
	cli := func(bin string, args ...string) map[string]any {
		t.Helper()
		return testenv.RunJSON(t, bin, append(append([]string{"--db", dsn, "--data-dir", dataDir}, args...), "--json")...)
	}
	cli(oldBin, "migrate")
	owner, password := "owner@rolling.example", "rolling-pass-2026"
	biz := cli(oldBin, "admin", "business", "create", "--name", "Rolling Cafe", "--loyalty-type", "per_spend",
		"--owner-email", owner, "--owner-password", password)
	app := cli(oldBin, "admin", "app", "create", "--name", "Till", "--api", "business", "--grant", "password", "--approve")
	key, client, secret := str(biz["application_key"]), str(app["client_id"]), str(app["client_secret"])

	// The instances serving, in turn.
	var mu sync.Mutex
	var live []*instance
	pick := func(n int) *instance {
		mu.Lock()
		defer mu.Unlock()
		return live[n%len(live)]
	}
	add := func(in *instance) {
		mu.Lock()
		defer mu.Unlock()
		live = append(live, in)
	}
	remove := func(in *instance) {
		mu.Lock()
		defer mu.Unlock()
		live = slices.DeleteFunc(live, func(x *instance) bool { return x == in })
	}
	old1, old2 := startInstance(t, oldBin, "old 1", dsn, dataDir), startInstance(t, oldBin, "old 2", dsn, dataDir)
	add(old1)
	add(old2)

	hc := &http.Client{Timeout: 30 * time.Second}
	till := testenv.Till{Key: key, ClientID: client, Secret: secret, Owner: owner, Password: password}
	token := func(base string) string {
		t.Helper()
		var out struct {
			AccessToken string `json:"access_token"`
		}
		if status := do(t, hc, till.TokenRequest(base), &out); status != http.StatusOK {
			t.Fatalf("token: %d", status)
		}
		return out.AccessToken
	}
	api := till.Request
	setup := token(old1.base)
	var customers []string
	for i := range 12 {
		var out struct{ Data struct{ ID string } }
		req := api(old1.base, setup, http.MethodPost, "/customers", map[string]any{"email": fmt.Sprintf("c%d@rolling.example", i)}, "")
		if status := do(t, hc, req, &out); status != http.StatusOK && status != http.StatusCreated {
			t.Fatalf("create customer: %d", status)
		}
		customers = append(customers, out.Data.ID)
	}

	// Each client sends an operation every few hundred milliseconds (a
	// token may make 240 requests a minute) to the next instance, and
	// retries it with the same key on the next until one answers.
	const clients = 8
	var stop atomic.Bool
	var amu sync.Mutex
	acked := map[string]int64{}   // customer -> points of the acknowledged operations
	entries := map[int64]string{} // entry id acknowledged -> its Idempotency-Key
	var retries, refused, done atomic.Int64
	byRelease := map[string]*atomic.Int64{"old": {}, "new": {}}
	var wg sync.WaitGroup
	for c := range clients {
		tok := token(old1.base) // tokens live in the database: every instance knows them
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 35))
			turn := c
			for op := 0; !stop.Load(); op++ {
				time.Sleep(time.Duration(250+rng.IntN(150)) * time.Millisecond)
				cust := customers[rng.IntN(len(customers))]
				body := map[string]any{"customer": map[string]string{"id": cust}}
				var delta int64
				byAmount := false // the points the rules give, read from the reply
				if rng.IntN(3) == 0 {
					delta = -int64(1 + rng.IntN(15))
					body["intent"], body["points"] = "redeem", -delta
				} else {
					delta = int64(1 + rng.IntN(20))
					body["intent"], body["points"] = "reward", delta
					if rng.IntN(2) == 0 {
						delete(body, "points")
						body["amount"] = float64(1+rng.IntN(20)) + 0.5 // visits and spend, for the summaries
						byAmount = true
					}
				}
				idem := fmt.Sprintf("client-%d-op-%d", c, op)
				for attempt := 0; ; attempt++ {
					if attempt > 100 {
						t.Errorf("%s: no answer after %d tries", idem, attempt)
						return
					}
					turn++
					in := pick(turn)
					var out struct {
						Data struct {
							ID     int64
							Points int64
						}
					}
					resp, err := hc.Do(api(in.base, tok, http.MethodPost, "/transactions", body, idem))
					if err != nil {
						retries.Add(1)
						time.Sleep(50 * time.Millisecond)
						continue
					}
					raw, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					switch resp.StatusCode {
					case http.StatusOK:
						if err := json.Unmarshal(raw, &out); err != nil || out.Data.ID <= 0 {
							t.Errorf("%s: reply %s", idem, raw)
							return
						}
						amu.Lock()
						if prev, seen := entries[out.Data.ID]; seen && prev != idem {
							t.Errorf("entry %d acknowledged for %s and %s", out.Data.ID, prev, idem)
						}
						first := entries[out.Data.ID] == ""
						entries[out.Data.ID] = idem
						if first {
							acked[cust] += out.Data.Points
						}
						amu.Unlock()
						if !byAmount && out.Data.Points != delta {
							t.Errorf("%s: entry of %d points, asked %d", idem, out.Data.Points, delta)
						}
						byRelease[in.release].Add(1)
					case http.StatusUnprocessableEntity:
						refused.Add(1) // a redeem beyond the balance: acknowledged, nothing moved
					case http.StatusServiceUnavailable, http.StatusTooManyRequests:
						retries.Add(1)
						wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
						time.Sleep(min(time.Duration(wait)*time.Second, 3*time.Second) + 50*time.Millisecond)
						continue
					default:
						t.Errorf("%s on %s: %d %s", idem, in.name, resp.StatusCode, raw)
						return
					}
					done.Add(1)
					break
				}
			}
		})
	}
	wait := func(d time.Duration, what string) {
		time.Sleep(d)
		t.Logf("%s after %d operations", what, done.Load())
	}

	wait(2*time.Second, "migrating with this tree's binary")
	start := time.Now()
	cli(newBin, "migrate")
	t.Logf("migrated in %s while the previous release served", time.Since(start).Round(time.Millisecond))
	wait(2*time.Second, "starting an instance of this tree")
	new1 := startInstance(t, newBin, "new 1", dsn, dataDir)
	add(new1)
	wait(3*time.Second, "stopping an instance of the previous release")
	remove(old1)
	old1.stop(t)
	wait(2*time.Second, "starting another instance of this tree")
	new2 := startInstance(t, newBin, "new 2", dsn, dataDir)
	add(new2)
	wait(3*time.Second, "killing the last instance of the previous release")
	old2.kill(t)
	time.Sleep(300 * time.Millisecond) // requests to it fail over meanwhile
	remove(old2)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wait(2*time.Second, "resyncing the summaries")
	t.Logf("%d of %d customers' summaries miss what the previous release wrote after the migration", offSummaries(t, db), len(customers))
	cli(newBin, "migrate", "--resync-summaries")
	wait(time.Second, "stopping the clients")
	stop.Store(true)
	wg.Wait()
	t.Logf("%d operations acknowledged (%d by the previous release, %d by this one; %d refused redeems), %d retries",
		done.Load(), byRelease["old"].Load(), byRelease["new"].Load(), refused.Load(), retries.Load())
	if byRelease["old"].Load() == 0 || byRelease["new"].Load() == 0 {
		t.Error("both releases should have served operations")
	}

	check := token(new1.base)
	checkDrift(t, hc, db, customers, acked, len(entries), func(path string) *http.Request {
		return api(new1.base, check, http.MethodGet, path, nil, "")
	})
	if off := offSummaries(t, db); off != 0 {
		t.Errorf("%d customers' summaries disagree with their ledger after the resync", off)
	}
}

// offSummaries counts the customers whose summary (visits, spend)
// disagrees with their ledger.
func offSummaries(t *testing.T, db *sql.DB) int {
	t.Helper()
	var off int
	if err := db.QueryRow(`SELECT COUNT(*) FROM customers cu LEFT JOIN (SELECT business_id, customer_id,
			SUM(visits) AS visits, SUM(tier_amount) AS spend FROM transactions GROUP BY business_id, customer_id) t
		ON t.business_id = cu.business_id AND t.customer_id = cu.user_id
		WHERE (cu.visits_total, cu.spend_total) IS DISTINCT FROM (COALESCE(t.visits, 0), COALESCE(t.spend, 0))`).Scan(&off); err != nil {
		t.Fatal(err)
	}
	return off
}

// instance is a running `loyalty serve` of one release.
type instance struct {
	name, release, base string
	cmd                 *exec.Cmd
	logs                *syncWriter
	buf                 *bytes.Buffer
	done                chan struct{}
}

// startInstance starts `bin serve` on a free loopback port and waits for
// its /readyz; it is stopped when the test ends, if still running.
func startInstance(t *testing.T, bin, name, dsn, dataDir string) *instance {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	in := &instance{name: name, release: strings.Fields(name)[0], base: "http://" + addr, buf: &bytes.Buffer{}, done: make(chan struct{})}
	in.logs = &syncWriter{w: in.buf}
	in.cmd = exec.Command(bin, "serve", "--addr", addr, "--db", dsn, "--data-dir", dataDir)
	in.cmd.Stdout, in.cmd.Stderr = io.Discard, in.logs
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { in.cmd.Wait(); close(in.done) }()
	t.Cleanup(func() {
		in.stop(t)
		if t.Failed() {
			in.logs.mu.Lock()
			t.Logf("%s's log (tail):\n%s", name, tail(in.buf.String(), 3000))
			in.logs.mu.Unlock()
		}
	})
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(in.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Logf("%s serving at %s", name, in.base)
				return in
			}
		}
	}
	t.Fatalf("%s did not answer /readyz within a minute", name)
	return nil
}

// stop ends the instance as an orchestrator does (SIGINT, then the
// requests under way finish).
func (in *instance) stop(t *testing.T) {
	select {
	case <-in.done:
		return
	default:
	}
	in.cmd.Process.Signal(os.Interrupt)
	select {
	case <-in.done:
	case <-time.After(30 * time.Second):
		t.Errorf("%s did not stop within 30 s of SIGINT", in.name)
		in.cmd.Process.Kill()
		<-in.done
	}
}

// kill ends the instance at once (SIGKILL), requests under way and all.
func (in *instance) kill(t *testing.T) {
	t.Helper()
	if err := in.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-in.done
}
