package fault

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // reads the ledger straight from the database

	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestLedgerHoldsUnderFaults runs the real binary on PostgreSQL and Redis,
// each reached through a proxy, while eight clients reward and redeem
// points for a few customers, each operation with its own Idempotency-Key
// and retried until it gets an answer. Midway Redis is cut and restored,
// then PostgreSQL. At the end, for every customer, the balance the API
// shows = the sum of its ledger = the sum of the operations acknowledged,
// and no Idempotency-Key wrote more than one entry.
func TestLedgerHoldsUnderFaults(t *testing.T) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		t.Skip("the fault test cuts a PostgreSQL connection; LOYALTY_TEST_POSTGRES=off")
	}
	bin := testenv.BuildLoyalty(t)
	dsn := testenv.DSN(t, sqlstore.Postgres)
	proxiedDB, pg := testenv.Proxied(t, dsn)
	ru, err := url.Parse(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	rds := testenv.NewProxy(t, ru.Host)
	dataDir := t.TempDir()

	cli := func(args ...string) map[string]any {
		t.Helper()
		return testenv.RunJSON(t, bin, append(append([]string{"--db", dsn, "--data-dir", dataDir}, args...), "--json")...)
	}
	cli("migrate")
	owner, password := "owner@fault.example", "fault-pass-2026"
	biz := cli("admin", "business", "create", "--name", "Fault Cafe", "--loyalty-type", "per_spend",
		"--owner-email", owner, "--owner-password", password)
	app := cli("admin", "app", "create", "--name", "Till", "--api", "business", "--grant", "password", "--approve")
	key, client, secret := str(biz["application_key"]), str(app["client_id"]), str(app["client_secret"])

	base := serve(t, bin, "--db", proxiedDB, "--redis", "redis://"+rds.Addr()+"/0", "--data-dir", dataDir)
	hc := &http.Client{Timeout: 10 * time.Second}
	till := testenv.Till{Key: key, ClientID: client, Secret: secret, Owner: owner, Password: password}
	token := func() string {
		t.Helper()
		var out struct {
			AccessToken string `json:"access_token"`
		}
		if status := do(t, hc, till.TokenRequest(base), &out); status != http.StatusOK {
			t.Fatalf("token: %d", status)
		}
		return out.AccessToken
	}
	api := func(tok, method, path string, body any, idem string) *http.Request {
		return till.Request(base, tok, method, path, body, idem)
	}

	setup := token()
	var customers []string
	for i := range 6 {
		var out struct{ Data struct{ ID string } }
		req := api(setup, http.MethodPost, "/customers", map[string]any{"email": fmt.Sprintf("c%d@fault.example", i)}, "")
		if status := do(t, hc, req, &out); status != http.StatusOK && status != http.StatusCreated {
			t.Fatalf("create customer: %d", status)
		}
		customers = append(customers, out.Data.ID)
	}

	// Each client sends operations one at a time, a few dozen a second,
	// and retries each, with the same key, until it has an answer; the
	// faults happen meanwhile, and the clients stop a second after them.
	const clients = 8
	var stop atomic.Bool
	var mu sync.Mutex
	acked := map[string]int64{}   // customer -> points of the acknowledged operations
	entries := map[int64]string{} // entry id acknowledged -> its Idempotency-Key
	var retries, refused, done atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		tok := token()
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for op := 0; !stop.Load(); op++ {
				time.Sleep(time.Duration(20+rng.IntN(40)) * time.Millisecond)
				cust := customers[rng.IntN(len(customers))]
				body := map[string]any{"customer": map[string]string{"id": cust}}
				var delta int64
				if rng.IntN(3) == 0 {
					delta = -int64(1 + rng.IntN(15))
					body["intent"], body["points"] = "redeem", -delta
				} else {
					delta = int64(1 + rng.IntN(20))
					body["intent"], body["points"] = "reward", delta
				}
				idem := fmt.Sprintf("client-%d-op-%d", c, op)
				for attempt := 0; ; attempt++ {
					if attempt > 200 {
						t.Errorf("%s: no answer after %d tries", idem, attempt)
						return
					}
					var out struct {
						Data struct {
							ID     int64
							Points int64
						}
					}
					resp, err := hc.Do(api(tok, http.MethodPost, "/transactions", body, idem))
					if err != nil {
						retries.Add(1)
						time.Sleep(100 * time.Millisecond)
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
						mu.Lock()
						if prev, seen := entries[out.Data.ID]; seen {
							t.Errorf("entry %d acknowledged for %s and %s", out.Data.ID, prev, idem)
						}
						entries[out.Data.ID] = idem
						acked[cust] += out.Data.Points
						mu.Unlock()
						if out.Data.Points != delta {
							t.Errorf("%s: entry of %d points, asked %d", idem, out.Data.Points, delta)
						}
					case http.StatusUnprocessableEntity:
						refused.Add(1) // a redeem beyond the balance: acknowledged, nothing moved
					case http.StatusServiceUnavailable, http.StatusTooManyRequests:
						retries.Add(1)
						wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
						time.Sleep(min(time.Duration(wait)*time.Second, 3*time.Second) + 50*time.Millisecond)
						continue
					default:
						t.Errorf("%s: %d %s", idem, resp.StatusCode, raw)
						return
					}
					done.Add(1)
					break
				}
			}
		})
	}
	fault := func(p *testenv.Proxy, what string) {
		time.Sleep(time.Second)
		t.Logf("cutting %s after %d operations", what, done.Load())
		p.Cut()
		time.Sleep(2 * time.Second)
		p.Restore()
		t.Logf("%s restored after %d operations", what, done.Load())
	}
	fault(rds, "Redis")
	fault(pg, "PostgreSQL")
	time.Sleep(time.Second)
	stop.Store(true)
	wg.Wait()
	t.Logf("%d operations acknowledged (%d refused redeems), %d retries", done.Load(), refused.Load(), retries.Load())
	if retries.Load() == 0 {
		t.Error("no request was retried: the faults did not reach the clients")
	}

	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check := token()
	checkDrift(t, hc, db, customers, acked, len(entries), func(path string) *http.Request {
		return api(check, http.MethodGet, path, nil, "")
	})
}

// checkDrift fails unless, for every customer, the balance the API shows
// (read builds the GET of a path) = the sum of its ledger = the sum of the
// operations acknowledged, and the ledger holds one reward or redeem per
// acknowledged operation (no Idempotency-Key wrote two).
func checkDrift(t *testing.T, hc *http.Client, db *sql.DB, customers []string, acked map[string]int64, entries int,
	read func(path string) *http.Request) {
	t.Helper()
	for _, cust := range customers {
		var shown struct {
			Included struct{ Balance struct{ Points int64 } }
		}
		if status := do(t, hc, read("/customers/"+cust+"?include=balance"), &shown); status != http.StatusOK {
			t.Fatalf("read customer: %d", status)
		}
		var ledger int64
		if err := db.QueryRow(`SELECT COALESCE(SUM(points), 0) FROM transactions WHERE customer_id = $1`, cust).Scan(&ledger); err != nil {
			t.Fatal(err)
		}
		if shown.Included.Balance.Points != ledger || ledger != acked[cust] {
			t.Errorf("customer %s: balance %d, ledger %d, acknowledged %d", cust, shown.Included.Balance.Points, ledger, acked[cust])
		}
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM transactions WHERE intent IN ('reward', 'redeem')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != entries {
		t.Errorf("%d ledger entries for %d acknowledged operations: an Idempotency-Key wrote more than one", n, entries)
	}
}

// serve starts `loyalty serve` with args on a free loopback port and
// returns its base URL once it answers; it is stopped when the test ends.
func serve(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, &syncWriter{w: &logs}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(logs.String(), 4000))
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return base
		}
	}
	t.Fatalf("serve did not answer within 30s")
	return ""
}

// do sends req and decodes a JSON reply into v; it returns the status.
func do(t *testing.T, hc *http.Client, req *http.Request, v any) int {
	t.Helper()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Logf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, raw)
	}
	if resp.StatusCode < 300 && v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s %s: %v\n%s", req.Method, req.URL.Path, err, raw)
		}
	}
	return resp.StatusCode
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

var tail, str = testenv.Tail, testenv.Str
