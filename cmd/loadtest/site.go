package main

// The in-process site the simple scenarios drive: the service on a fresh
// database, its first business and token, wrk against it, the bare
// reference server, and the private schema a PostgreSQL run works in.

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

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

// keepData (-keep) keeps the run's databases for a look afterwards.
var keepData bool

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
		if keepData {
			fmt.Printf("kept schema %s\n", schema)
		} else {
			db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		}
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
