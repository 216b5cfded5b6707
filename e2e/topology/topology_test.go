package topology

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // reads the ledger straight from the new primary

	"github.com/loyalty/loyalty/internal/testenv"
)

// TestScaleOutAndFailover starts the production topology of
// deploy/local-cluster.sh — a PostgreSQL primary with a synchronous hot
// standby, a transaction-pooling pgbouncer in front of each, three
// instances sharing them and Redis, HAProxy (TLS) in front — and has eight
// clients reward and redeem points through HAProxy, each operation with
// its own Idempotency-Key and retried until it gets an answer. Midway the
// primary crashes and the standby is promoted. At the end, for every
// customer, the balance the API shows = the sum of its ledger = the sum
// of the operations acknowledged, no key wrote two entries, every
// instance served rewards, and a token revoked through one instance is
// refused by all three at once (their LISTEN connections found the new
// primary), though each may cache a lookup for an hour.
func TestScaleOutAndFailover(t *testing.T) {
	needTools(t)
	bin := testenv.BuildLoyalty(t)
	c := startCluster(t, bin, "LOYALTY_TOKEN_CACHE=1h")
	base := c.env["URL"]

	owner, password := "owner@topology.example", "topology-pass-2026"
	biz := c.cli(t, bin, "admin", "business", "create", "--name", "Topology Cafe", "--loyalty-type", "per_spend",
		"--owner-email", owner, "--owner-password", password)
	app := c.cli(t, bin, "admin", "app", "create", "--name", "Till", "--api", "business", "--grant", "password", "--approve")
	key, clientID, secret := str(biz["application_key"]), str(app["client_id"]), str(app["client_secret"])
	token := func() string {
		t.Helper()
		form := url.Values{"grant_type": {"password"}, "client_id": {clientID}, "client_secret": {secret},
			"username": {owner}, "password": {password}, "scope": {"admin"}, "application_key": {key}}
		req, _ := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Application-Key", key)
		var out struct {
			AccessToken string `json:"access_token"`
		}
		if status, raw := do(c.client, req, &out); status != http.StatusOK {
			t.Fatalf("token: %d %s", status, raw)
		}
		return out.AccessToken
	}
	api := func(at, tok, method, path string, body any, idem string) *http.Request {
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, at+path, r)
		req.Header.Set("X-Application-Key", key)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		if idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		return req
	}

	setup := token()
	var customers []string
	for i := range 12 {
		var out struct{ Data struct{ ID string } }
		req := api(base, setup, http.MethodPost, "/customers", map[string]any{"email": fmt.Sprintf("c%d@topology.example", i)}, "")
		if status, raw := do(c.client, req, &out); status != http.StatusOK && status != http.StatusCreated {
			t.Fatalf("create customer: %d %s", status, raw)
		}
		customers = append(customers, out.Data.ID)
	}

	// Each client sends one operation at a time, about fifteen a second
	// (under its token's 240 a minute for the test's length), retrying
	// each with its key until it has an answer.
	const clients = 8
	var stop atomic.Bool
	var mu sync.Mutex
	acked := map[string]int64{}   // customer -> points of the acknowledged operations
	entries := map[int64]string{} // entry id acknowledged -> its Idempotency-Key
	var retries, refused, limited, done atomic.Int64
	var wg sync.WaitGroup
	for n := range clients {
		tok := token()
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(n), 13))
			for op := 0; !stop.Load(); op++ {
				time.Sleep(time.Duration(40+rng.IntN(40)) * time.Millisecond)
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
				idem := fmt.Sprintf("client-%d-op-%d", n, op)
				for attempt := 0; ; attempt++ {
					if attempt > 300 {
						t.Errorf("%s: no answer after %d tries", idem, attempt)
						return
					}
					var out struct {
						Data struct {
							ID     int64
							Points int64
						}
					}
					status, raw := do(c.client, api(base, tok, http.MethodPost, "/transactions", body, idem), &out)
					switch status {
					case http.StatusOK:
						if out.Data.ID <= 0 {
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
					case 0, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
						// No answer, or none yet: the database, or every
						// instance behind HAProxy, is failing over.
						if status == http.StatusTooManyRequests {
							limited.Add(1)
						}
						retries.Add(1)
						time.Sleep(100 * time.Millisecond)
						continue
					default:
						t.Errorf("%s: %d %s", idem, status, raw)
						return
					}
					done.Add(1)
					break
				}
			}
		})
	}
	waitOps := func(n int64, what string) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); done.Load() < n; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("%s: %d operations acknowledged, want %d", what, done.Load(), n)
			}
		}
	}
	waitOps(100, "before the failover")
	before, start := done.Load(), time.Now()
	t.Logf("failover after %d operations:\n%s", before, strings.TrimSpace(c.run(t, "failover")))
	promoted := time.Since(start)
	waitOps(done.Load()+100, "after the failover")
	stop.Store(true)
	wg.Wait()
	t.Logf("%d operations acknowledged (%d refused redeems), %d retries, %d answered 429; crash + promote took %v, 100 operations after it %v",
		done.Load(), refused.Load(), retries.Load(), limited.Load(), promoted.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if retries.Load() == 0 {
		t.Error("no request was retried: the failover did not reach the clients")
	}

	db, err := sql.Open("pgx", c.env["DB_DIRECT"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check := token()
	for _, cust := range customers {
		var shown struct {
			Included struct{ Balance struct{ Points int64 } }
		}
		if status, raw := do(c.client, api(base, check, http.MethodGet, "/customers/"+cust+"?include=balance", nil, ""), &shown); status != http.StatusOK {
			t.Fatalf("read customer: %d %s", status, raw)
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
	if n != len(entries) {
		t.Errorf("%d ledger entries for %d acknowledged operations: an Idempotency-Key wrote more than one", n, len(entries))
	}

	instances := strings.Fields(c.env["INSTANCES"])
	for _, at := range instances {
		if served := rewardsServed(t, c.client, at); served == 0 {
			t.Errorf("instance %s served no POST /transactions: HAProxy did not spread the load", at)
		} else {
			t.Logf("instance %s served %d POST /transactions", at, served)
		}
	}
	revokedEverywhere(t, c, instances, func(at, tok string) *http.Request {
		return api(at, tok, http.MethodGet, "/customers/"+customers[0], nil, "")
	}, token(), clientID, secret)
}

// revokedEverywhere revokes tok through HAProxy once every instance has
// cached its lookup, and waits until each instance refuses it: only its
// LISTEN connection, on the new primary, can tell it within the hour of
// its cache.
func revokedEverywhere(t *testing.T, c *cluster, instances []string, read func(at, tok string) *http.Request, tok, clientID, secret string) {
	t.Helper()
	for _, at := range instances {
		if status, raw := do(c.client, read(at, tok), nil); status != http.StatusOK {
			t.Fatalf("read through %s: %d %s", at, status, raw)
		}
	}
	form := url.Values{"token": {tok}, "client_id": {clientID}, "client_secret": {secret}}
	req, _ := http.NewRequest(http.MethodPost, c.env["URL"]+"/oauth/revoke", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if status, raw := do(c.client, req, nil); status != http.StatusOK {
		t.Fatalf("revoke: %d %s", status, raw)
	}
	start := time.Now()
	for _, at := range instances {
		for {
			status, _ := do(c.client, read(at, tok), nil)
			if status == http.StatusUnauthorized {
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("instance %s still accepts a token revoked %v ago (its cache lives an hour): it does not listen on the new primary", at, time.Since(start))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	t.Logf("a token revoked through HAProxy was refused by all three instances within %v", time.Since(start).Round(time.Millisecond))
}

var rewardsLine = regexp.MustCompile(`(?m)^loyalty_http_requests_total\{[^}]*route="POST /transactions"[^}]*status="200"[^}]*\} (\S+)$`)

// rewardsServed is the number of POST /transactions an instance answered
// 200, from its metrics.
func rewardsServed(t *testing.T, hc *http.Client, at string) int {
	t.Helper()
	resp, err := hc.Get(at + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	total := 0
	for _, m := range rewardsLine.FindAllStringSubmatch(string(raw), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		total += int(v)
	}
	return total
}
