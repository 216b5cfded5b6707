package topology

import (
	"database/sql"
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
// deploy/local-cluster.sh — a pg_auto_failover monitor and two PostgreSQL
// nodes (a primary and its synchronous secondary), a transaction-pooling
// pgbouncer in front of each node, three instances sharing them and Redis,
// HAProxy (TLS) in front — and has eight clients reward and redeem points
// through HAProxy, each operation with its own Idempotency-Key and retried
// until it gets an answer. Midway the primary's machine is lost (its
// keeper and PostgreSQL killed with SIGKILL) and nobody promotes anything
// by hand: the monitor notices and promotes the secondary. The test
// reports how long writes were refused (outage) and fails beyond
// maxRefused. At the end, for every customer, the balance the API shows =
// the sum of its ledger = the sum of the operations acknowledged, no key
// wrote two entries, every instance served rewards, and a token revoked
// through one instance is refused by all three at once (their LISTEN
// connections found the new primary), though each may cache a lookup for
// an hour.
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
	till := testenv.Till{Key: key, ClientID: clientID, Secret: secret, Owner: owner, Password: password}
	token := func() string {
		t.Helper()
		var out struct {
			AccessToken string `json:"access_token"`
		}
		if status, raw := do(c.client, till.TokenRequest(base), &out); status != http.StatusOK {
			t.Fatalf("token: %d %s", status, raw)
		}
		return out.AccessToken
	}
	api := till.Request

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
	var out outage
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
				giveUp := time.Now().Add(2 * time.Minute)
				for attempt := 0; ; attempt++ {
					if time.Now().After(giveUp) {
						t.Errorf("%s: no answer after %d tries in 2 minutes", idem, attempt)
						return
					}
					var reply struct {
						Data struct {
							ID     int64
							Points int64
						}
					}
					sent := time.Now()
					status, raw := do(c.client, api(base, tok, http.MethodPost, "/transactions", body, idem), &reply)
					switch status {
					case http.StatusOK, http.StatusUnprocessableEntity:
						out.accepted(sent, time.Now())
					case 0, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
						out.refused(sent, time.Now(), status)
					}
					switch status {
					case http.StatusOK:
						if reply.Data.ID <= 0 {
							t.Errorf("%s: reply %s", idem, raw)
							return
						}
						mu.Lock()
						if prev, seen := entries[reply.Data.ID]; seen {
							t.Errorf("entry %d acknowledged for %s and %s", reply.Data.ID, prev, idem)
						}
						entries[reply.Data.ID] = idem
						acked[cust] += reply.Data.Points
						mu.Unlock()
						if reply.Data.Points != delta {
							t.Errorf("%s: entry of %d points, asked %d", idem, reply.Data.Points, delta)
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
	out.lose(start)
	t.Logf("primary lost after %d operations:\n%s", before, strings.TrimSpace(c.run(t, "failover")))
	promoted := time.Since(start)
	waitOps(done.Load()+100, "after the failover")
	stop.Store(true)
	wg.Wait()
	refusedFor := out.window()
	t.Logf("%d operations acknowledged (%d refused redeems), %d retries, %d answered 429; loss to promotion (the script) %v, 100 operations after it %v",
		done.Load(), refused.Load(), retries.Load(), limited.Load(), promoted.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	t.Logf("writes refused for %v: %s", refusedFor.Round(time.Millisecond), out.String())
	switch {
	case retries.Load() == 0 || refusedFor == 0:
		t.Errorf("no write was refused: the loss of the primary did not reach the clients (%s)", out.String())
	case refusedFor > maxRefused:
		t.Errorf("writes refused for %v after the primary was lost, more than %v (%s)", refusedFor.Round(time.Millisecond), maxRefused, out.String())
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
			t.Errorf("customer %s: balance %d, ledger %d, acknowledged %d (after a failover that refused writes for %v)",
				cust, shown.Included.Balance.Points, ledger, acked[cust], refusedFor.Round(time.Millisecond))
		}
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM transactions WHERE intent IN ('reward', 'redeem')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(entries) {
		t.Errorf("%d ledger entries for %d acknowledged operations: an Idempotency-Key wrote more than one (after a failover that refused writes for %v)",
			n, len(entries), refusedFor.Round(time.Millisecond))
	}

	instances := strings.Fields(c.env["INSTANCES"])
	// Each instance's LISTEN connection retries, its wait doubling up to
	// 5 s, so after an outage of seconds it may find the new primary a
	// few seconds after the writes do; until then the instance counts as
	// deaf and keeps its token cache (here an hour). Wait for the three
	// on the new primary, then a revocation must reach them at once.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var listening int
		if err := db.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %'`).Scan(&listening); err != nil {
			t.Fatal(err)
		}
		if listening >= len(instances) {
			t.Logf("the %d instances' LISTEN connections were on the new primary %v after the loss of the old one", listening, time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d LISTEN connections on the new primary %v after the loss of the old one, want %d", listening, time.Since(start).Round(time.Millisecond), len(instances))
		}
	}
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

// maxRefused bounds how long writes may be refused when the primary is
// lost. pg_auto_failover, with the script's settings, fails over once the
// primary's keeper has been silent for 3 s while the monitor's checks of
// its PostgreSQL fail (checked every 1 s, 2 retries 0.5 s apart); the
// secondary is then promoted but kept read-only for 5 s (the time a
// primary cut off from the monitor has to demote itself), after which it
// accepts writes. Add the keepers' and monitor's one-second loops (a few
// of them), pgbouncer's 2 s for a request queued on the dead node and
// HAProxy's half-second health checks: about 14 s at worst (8.9-9.4 s
// measured, docs/topology.md). The bound is twice that and a little more,
// for a CI machine busy with other tests.
const maxRefused = 30 * time.Second

// outage times the writes refused around the loss of the primary: from
// the sending of the first write that failed (no answer, 502, 503 or 504,
// seen after the primary was lost) to the answer of the first write that
// was accepted (200, or 422 for a redeem beyond the balance) among those
// sent after a failure was seen. A 429 is neither.
type outage struct {
	mu                    sync.Mutex
	lost                  time.Time // when the failover began
	firstSent, firstSeen  time.Time // the first failed write: sent, its failure seen
	back                  time.Time // the first accepted write sent after firstSeen: answered
	failures, lateFailure int       // failed writes; of them after back
	early                 int       // failures before the primary was lost
	statuses              map[int]int
}

func (o *outage) lose(at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lost = at
}

func (o *outage) refused(sent, seen time.Time, status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lost.IsZero() || seen.Before(o.lost) {
		o.early++
		return
	}
	o.failures++
	if o.statuses == nil {
		o.statuses = map[int]int{}
	}
	o.statuses[status]++
	if !o.back.IsZero() && sent.After(o.back) {
		o.lateFailure++
	}
	if o.firstSent.IsZero() || sent.Before(o.firstSent) {
		o.firstSent = sent
	}
	if o.firstSeen.IsZero() || seen.Before(o.firstSeen) {
		o.firstSeen = seen
	}
}

func (o *outage) accepted(sent, seen time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.firstSeen.IsZero() && sent.After(o.firstSeen) && (o.back.IsZero() || seen.Before(o.back)) {
		o.back = seen
	}
}

// window is how long writes were refused: 0 if none was.
func (o *outage) window() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.firstSent.IsZero() || o.back.IsZero() {
		return 0
	}
	return o.back.Sub(o.firstSent)
}

func (o *outage) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	since := func(at time.Time) string {
		if at.IsZero() {
			return "never"
		}
		d := at.Sub(o.lost).Round(time.Millisecond)
		if d < 0 {
			return d.String()
		}
		return "+" + d.String()
	}
	var by []string
	for _, code := range []int{http.StatusServiceUnavailable, http.StatusBadGateway, http.StatusGatewayTimeout, 0} {
		if n := o.statuses[code]; n > 0 {
			name := fmt.Sprint(code)
			if code == 0 {
				name = "no answer"
			}
			by = append(by, fmt.Sprintf("%d %s", n, name))
		}
	}
	return fmt.Sprintf("from the loss of the primary, first refused write sent at %s (refusal seen at %s), first write accepted again at %s; %d refused attempts [%s] (%d sent after writes were accepted again, %d before the loss)",
		since(o.firstSent), since(o.firstSeen), since(o.back), o.failures, strings.Join(by, ", "), o.lateFailure, o.early)
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
