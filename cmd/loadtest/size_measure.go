package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/sqlstore"
)

// The size scenario: every list and filter of the business API, and a
// reward and a read, measured on a business of 10,000 customers and on
// one of -size-customers customers, each in a database of its own
// (a schema of its own on PostgreSQL, a file of its own on SQLite),
// both served by this process. The two are measured in alternating
// pairs (-pairs), the order within a pair swapped every pair, so that
// both sides of every ratio see the same machine; the figures are
// written in Go's benchmark format for benchstat, with the CPU time of
// the service (and of PostgreSQL) per request beside the throughput.
// Customers are written straight in SQL (the API would take hours),
// and the statistics stay as a bulk load leaves them: no ANALYZE.
//
// A filter is measured with the same number of matches at both sizes
// (a window of 1,000 join times, say): a list is flat when its time
// follows what it returns, not the size of the business. Each list's
// meta.total is checked against the matches it must have before it is
// measured.

// sizeScript is a wrk script requesting paths at random (or, for the
// reward, posting rewards to random customers) with the site's
// credentials, and reporting its answers for runWrk.
const sizeScript = `paths = {%s}
post = %t
key, token = %q, %q
request = function()
  local h = {["X-Application-Key"] = key, ["Authorization"] = "Bearer " .. token}
  local p = paths[math.random(#paths)]
  if post then
    h["Content-Type"] = "application/json"
    return wrk.format("POST", "/transactions", h, '{"intent":"reward","amount":12.50,"customer":{"id":"' .. p .. '"}}')
  end
  return wrk.format("GET", p, h)
end
` + wrkCounting

// writeSizeScript writes op's script over s into dir.
func writeSizeScript(dir string, op sizeOp, s *sizeSite, rng *rand.Rand) (string, error) {
	items := make([]string, sizeSample)
	for i := range items {
		if op.paths == nil {
			items[i] = strconv.Quote(sizeID(s.random(rng)))
		} else {
			items[i] = strconv.Quote(op.paths(s, rng))
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.lua", strings.NewReplacer(" ", "-", ".", "-").Replace(op.name), s.customers))
	lua := fmt.Sprintf(sizeScript, strings.Join(items, ","), op.paths == nil, s.key, s.token)
	return path, os.WriteFile(path, []byte(lua), 0o600)
}

// sizeScenario seeds the two businesses, checks every list's total and
// measures the pairs.
func sizeScenario(ctx context.Context, big *site, dsn string, o options) error {
	if o.small < 1000 || o.customers <= o.small {
		return fmt.Errorf("-size-small %d, -size-customers %d: the filters select 1,000 customers, and the reference is the smaller", o.small, o.customers)
	}
	smallDSN, drop, err := secondDatabase(ctx, dsn)
	if err != nil {
		return err
	}
	defer drop()
	small, err := startSite(ctx, smallDSN)
	if err != nil {
		return err
	}
	defer small.close()
	pg := big.app.DB.Dialect() == sqlstore.Postgres
	// Every seeded customer joined before the sites' own customers, an
	// hour or more ago.
	base := time.Now().UTC().Add(-time.Duration(o.customers)*time.Second - time.Hour).Truncate(time.Second)
	var sites []*sizeSite
	for _, sz := range []struct {
		st *site
		n  int
	}{{small, o.small}, {big, o.customers}} {
		s := &sizeSite{site: sz.st, customers: sz.n, perCustomer: o.perCustomer, epoch: base}
		if err := seedSizeSite(ctx, s, pg); err != nil {
			return err
		}
		sites = append(sites, s)
	}
	dir, err := os.MkdirTemp("", "loyalty-size")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	only, err := regexp.Compile(o.sizeOnly)
	if err != nil {
		return fmt.Errorf("-ops: %w", err)
	}
	var ops []sizeOp
	for _, op := range sizeOps {
		if only.MatchString(op.name) {
			ops = append(ops, op)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, op := range sizeOps {
		for _, s := range sites {
			if err := checkSizeOp(op, s, rng); err != nil {
				return err
			}
		}
	}
	fmt.Printf("every list's meta.total checked at both sizes; %d pairs of %s runs, %d connections\n", o.pairs, o.dur, o.conns)
	results, err := os.Create(filepath.Join(o.outDir, "size-results.txt"))
	if err != nil {
		return err
	}
	defer results.Close()
	fmt.Fprintf(results, "goos: linux\ngoarch: amd64\npkg: loadtest/size\nengine: %s\n", big.app.DB.Dialect())
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for pair := range o.pairs {
		for _, op := range ops {
			order := sites
			if pair%2 == 1 {
				order = []*sizeSite{sites[1], sites[0]}
			}
			for _, s := range order {
				script, err := writeSizeScript(dir, op, s, rng)
				if err != nil {
					return err
				}
				m, err := runWrk(s.site.base, script, o.conns, o.threads, o.dur, []string{"self"}, pg)
				if err != nil {
					return err
				}
				if m.requests == 0 {
					return fmt.Errorf("%s at %d customers: no request answered in %s", op.name, s.customers, o.dur)
				}
				if m.limited > 0 || m.failed > 0 {
					return fmt.Errorf("%s at %d customers: %d answered 429, %d failed", op.name, s.customers, m.limited, m.failed)
				}
				fmt.Printf("pair %d %9d customers  %-32s %s\n", pair+1, s.customers, op.name, m)
				cpu := m.allCPUPerReq()
				fmt.Fprintf(results, "BenchmarkSize/op=%s/customers=%d %d %.0f ns/op %.1f req/s %d cpu-ns/op\n",
					strings.ReplaceAll(op.name, " ", "_"), s.customers, m.requests, 1e9/m.rps, m.rps, cpu.Nanoseconds())
			}
		}
	}
	fmt.Printf("figures: %s\n", results.Name())
	if bs, err := exec.LookPath("benchstat"); err == nil {
		out, err := exec.Command(bs, "-col", "/customers", results.Name()).CombinedOutput()
		fmt.Printf("benchstat -col /customers (time per request: target within 1.5×, i.e. at most +50%%):\n%s", out)
		return err
	}
	fmt.Println("summarise with: benchstat -col /customers " + results.Name())
	return nil
}

// seedSizeSite seeds s's customers, their entries and coupons, and its
// offers.
func seedSizeSite(ctx context.Context, s *sizeSite, pg bool) error {
	a := s.app
	b, err := businessOfKey(ctx, a, s.key)
	if err != nil {
		return err
	}
	if s.branch, err = mainBranch(ctx, a, b.ID); err != nil {
		return err
	}
	var offerID string
	for i := range sizeOffers {
		var created struct {
			Data struct {
				ID json.Number `json:"id"`
			} `json:"data"`
		}
		body := fmt.Sprintf(`{"type_id":3,"title":"Offer %d","points":5}`, i+1)
		if err := s.call(http.MethodPost, "/offers", body, &created); err != nil {
			return err
		}
		if i == 0 {
			offerID = created.Data.ID.String()
		}
	}
	start := time.Now()
	if err := seedSize(ctx, a.DB.SQL(), pg, b.ID, s.branch, s.epoch, 0, s.customers, s.perCustomer); err != nil {
		return err
	}
	if err := seedCoupons(ctx, a.DB.SQL(), pg, b.ID, offerID, s.epoch, s.customers); err != nil {
		return err
	}
	fmt.Printf("seeded %d customers (%d entries and a coupon each) in %s; database %s\n", s.customers, s.perCustomer,
		time.Since(start).Round(time.Second), databaseSize(ctx, a))
	return nil
}

// request is a request of the site's API with its application key and
// token, body (if any) as JSON.
func (s *site) request(method, path, body string) (*http.Request, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Application-Key", s.key)
	req.Header.Set("Authorization", "Bearer "+s.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// call sends a request with the site's credentials and decodes a 200's
// body into out.
func (s *site) call(method, path, body string, out any) error {
	req, err := s.request(method, path, body)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

// checkSizeOp sends one of op's requests to s and checks that it is
// answered, and that a list gives the total it must.
func checkSizeOp(op sizeOp, s *sizeSite, rng *rand.Rand) error {
	if op.paths == nil {
		return nil
	}
	path := op.paths(s, rng)
	var page struct {
		Meta *struct {
			Total *int `json:"total"`
		} `json:"meta"`
	}
	if err := s.call(http.MethodGet, path, "", &page); err != nil {
		return err
	}
	want := op.matches(s)
	if want < 0 {
		return nil
	}
	if page.Meta == nil || page.Meta.Total == nil {
		return fmt.Errorf("%s: no meta.total in the answer", path)
	}
	if *page.Meta.Total != want {
		return fmt.Errorf("%s at %d customers: meta.total %d, want %d", path, s.customers, *page.Meta.Total, want)
	}
	return nil
}

// secondDatabase makes the reference business's database beside dsn's:
// another schema of the same PostgreSQL database, or another SQLite file.
func secondDatabase(ctx context.Context, dsn string) (string, func(), error) {
	if strings.HasPrefix(dsn, "postgres") {
		return privateSchema(ctx, dsn)
	}
	dir, err := os.MkdirTemp("", "loyalty-size-small")
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, "loyalty.db"), func() { removeUnlessKept(dir) }, nil
}

// removeUnlessKept removes a run's directory, or with -keep says where
// it is.
func removeUnlessKept(dir string) {
	if keepData {
		fmt.Printf("kept %s\n", dir)
		return
	}
	os.RemoveAll(dir)
}
