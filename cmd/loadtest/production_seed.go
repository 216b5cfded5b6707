package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// tenant is one seeded business as the load sees it: its Application
// Key, the tokens its tills signed in with, and its customers.
type tenant struct {
	id        string
	key       string
	owner     string
	tokens    []string
	customers []string
}

// grantsPerAddress is how many password grants one source address asks
// for: under the token endpoint's 60 a minute per client IP, with room
// for the retries after a 429.
const grantsPerAddress = 50

const ownerPassword = "load-owner-password"

// grantStats is what signing the tokens in measured.
type grantStats struct {
	took      time.Duration
	addresses int
	limited   int64 // 429s met (waited out and retried)
}

// seedTenants creates n businesses (as support's `loyalty admin business
// create` does) and one approved password-grant app, then signs in
// tokensEach tokens per business by the password grant over HTTP.
func seedTenants(ctx context.Context, a *app.App, srv server, n, tokensEach int) ([]*tenant, grantStats, error) {
	var gs grantStats
	ap, err := a.OAuth.CreateApp(ctx, oauth.NewApp{Name: "load till", API: oauth.APIBusiness, GrantType: oauth.GrantPassword, Approve: true})
	if err != nil {
		return nil, gs, err
	}
	run := time.Now().UnixNano()
	tenants := make([]*tenant, n)
	for i := range tenants {
		owner := fmt.Sprintf("owner-%d-%d@load.example", run, i)
		b, err := a.Admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: fmt.Sprintf("Load %d", i), LoyaltyType: loyalty.PerSpend,
			OwnerEmail: owner, OwnerPassword: ownerPassword})
		if err != nil {
			return nil, gs, err
		}
		tenants[i] = &tenant{id: b.BusinessID, key: b.ApplicationKey, owner: owner}
	}
	// Each source address asks for at most grantsPerAddress tokens; the
	// addresses work in parallel, a few grants at a time each (every grant
	// hashes a password).
	start := time.Now()
	type grant struct{ t *tenant }
	var grants []grant
	for range tokensEach {
		for _, t := range tenants {
			grants = append(grants, grant{t})
		}
	}
	addresses := (len(grants) + grantsPerAddress - 1) / grantsPerAddress
	gs.addresses = addresses
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, addresses)
	for i := range addresses {
		client, err := clientFrom(i, srv.tls)
		if err != nil {
			return nil, gs, err
		}
		mine := grants[i*grantsPerAddress : min((i+1)*grantsPerAddress, len(grants))]
		wg.Go(func() {
			for _, g := range mine {
				tok, err := passwordGrant(client, srv.base, ap, g.t, &gs.limited)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				g.t.tokens = append(g.t.tokens, tok)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, gs, err
	}
	gs.took = time.Since(start)
	return tenants, gs, nil
}

// clientFrom is an HTTP client whose connections leave from loopback
// address 127.0.0.(2+i), so that each counts as its own client IP (also
// behind a proxy that forwards it, such as local-cluster.sh's HAProxy).
func clientFrom(i int, tc *tls.Config) (*http.Client, error) {
	if i > 250 {
		return nil, fmt.Errorf("%d source addresses needed, 127.0.0.2-252 has 251: fewer tokens", i+1)
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i))}}
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext, TLSClientConfig: tc, MaxIdleConnsPerHost: 4}}, nil
}

// passwordGrant signs the business's owner in at /oauth/token, waiting
// out the endpoint's limit when it answers 429 (counted in limited).
func passwordGrant(client *http.Client, base string, ap oauth.CreatedApp, t *tenant, limited *int64) (string, error) {
	form := url.Values{"grant_type": {"password"}, "client_id": {ap.ClientID}, "client_secret": {ap.ClientSecret},
		"username": {t.owner}, "password": {ownerPassword}, "scope": {"admin"}, "application_key": {t.key}}
	for {
		req, _ := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Application-Key", t.key)
		var out struct {
			AccessToken string `json:"access_token"`
		}
		status, wait, err := send(client, req, &out)
		if err != nil {
			return "", fmt.Errorf("password grant: %w", err)
		}
		if status == http.StatusTooManyRequests {
			atomic.AddInt64(limited, 1)
			time.Sleep(wait)
			continue
		}
		if status != http.StatusOK {
			return "", fmt.Errorf("password grant: status %d", status)
		}
		return out.AccessToken, nil
	}
}

// seedStats is what the seeding of customers measured.
type seedStats struct {
	took    time.Duration
	limited int64     // 429s met (waited out and retried)
	tenths  []float64 // customers per second in each tenth of the seeding
}

// seedCustomers creates perTenant customers in each business through the
// API, as a business's tills would (POST /customers, then one reward by
// amount), from clients concurrent clients, each business's requests
// spread over its tokens.
func seedCustomers(srv server, tenants []*tenant, perTenant, clients int) (seedStats, error) {
	base := srv.base
	type job struct {
		t *tenant
		i int
	}
	total := perTenant * len(tenants)
	jobs := make(chan job, clients)
	go func() {
		for i := range perTenant {
			for _, t := range tenants {
				jobs <- job{t, i}
			}
		}
		close(jobs)
	}()
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: srv.tls, MaxIdleConnsPerHost: clients}}
	var st seedStats
	var mu sync.Mutex
	var done atomic.Int64
	marks := make([]time.Time, 0, 11)
	start := time.Now()
	marks = append(marks, start)
	var wg sync.WaitGroup
	var failed atomic.Bool
	errs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			for j := range jobs {
				if failed.Load() {
					continue // drain: the seeding has failed
				}
				tok := j.t.tokens[j.i%len(j.t.tokens)]
				var out struct{ Data struct{ ID string } }
				err := st.call(hc, base, j.t.key, tok, "/customers", fmt.Sprintf(`{"email":"c%d-%s@load.example"}`, j.i, j.t.id), &out)
				if err == nil {
					err = st.call(hc, base, j.t.key, tok, "/transactions",
						`{"intent":"reward","amount":12.50,"customer":{"id":"`+out.Data.ID+`"}}`, nil)
				}
				if err != nil {
					failed.Store(true)
					errs <- err
					continue
				}
				mu.Lock()
				j.t.customers = append(j.t.customers, out.Data.ID)
				if n := done.Add(1); n*10/int64(total) > int64(len(marks)-1) {
					marks = append(marks, time.Now())
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return st, err
	}
	st.took = time.Since(start)
	for i := 1; i < len(marks); i++ {
		st.tenths = append(st.tenths, float64(total)/10/marks[i].Sub(marks[i-1]).Seconds())
	}
	return st, nil
}

// call POSTs body to path with a business token, waiting out a 429 (the
// seeding is not measured for limits, only counted).
func (st *seedStats) call(hc *http.Client, base, key, tok, path, body string, v any) error {
	for {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("X-Application-Key", key)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		status, wait, err := send(hc, req, v)
		if err != nil {
			return fmt.Errorf("POST %s: %w", path, err)
		}
		if status == http.StatusTooManyRequests {
			atomic.AddInt64(&st.limited, 1)
			time.Sleep(wait)
			continue
		}
		if status != http.StatusOK && status != http.StatusCreated {
			return fmt.Errorf("POST %s: status %d", path, status)
		}
		return nil
	}
}

// send sends req and decodes a successful JSON reply into v; for a 429 it
// returns how long Retry-After asks to wait.
func send(hc *http.Client, req *http.Request, v any) (int, time.Duration, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusTooManyRequests {
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return resp.StatusCode, time.Duration(max(secs, 1)) * time.Second, nil
	}
	if resp.StatusCode < 300 && v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			return 0, 0, fmt.Errorf("%v: %s", err, raw)
		}
	}
	return resp.StatusCode, 0, nil
}
