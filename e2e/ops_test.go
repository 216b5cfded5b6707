package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/testenv"
)

// TestOperations covers the probes, metrics, the served OpenAPI document,
// the JSON answers to unknown routes, and the spec's default limits.
func TestOperations(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, httpapi.Limits{}) // the spec's limits

		t.Run("probes", func(t *testing.T) {
			for _, p := range []string{"/healthz", "/readyz"} {
				if st := str(e.get(t, p).want(t, http.StatusOK).obj(t)["status"]); st != "ok" {
					t.Errorf("%s: status %q", p, st)
				}
			}
		})

		t.Run("one JSON log line per request", func(t *testing.T) {
			before := len(e.logs.Lines())
			e.get(t, "/readyz").want(t, http.StatusOK)
			e.owner(t, e.biz).get(t, "/customers/nope").want(t, http.StatusBadRequest)
			var got []map[string]any
			for _, l := range e.logs.Lines()[before:] {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("log line is not JSON: %q", l)
				}
				if m["msg"] == "request" {
					got = append(got, m)
				}
			}
			want := []string{"GET /readyz 200", "POST /oauth/token 200", "GET /customers/nope 400"}
			if len(got) != len(want) {
				t.Fatalf("request log lines: %v, want %d", got, len(want))
			}
			for i, m := range got {
				if line := fmt.Sprintf("%v %v %v", m["method"], m["path"], m["status"]); line != want[i] {
					t.Errorf("log line %d: %s, want %s", i, line, want[i])
				}
				if _, ok := m["duration_ms"]; !ok || m["time"] == nil || m["route"] == nil {
					t.Errorf("log line lacks time, route or duration: %v", m)
				}
			}
		})

		t.Run("metrics", func(t *testing.T) {
			e.get(t, "/healthz").want(t, http.StatusOK)
			body := string(e.get(t, "/metrics").want(t, http.StatusOK).Body)
			if !strings.Contains(body, "loyalty_http_requests_total") || !strings.Contains(body, `route="GET /healthz"`) {
				t.Errorf("metrics lack loyalty_http_requests_total for GET /healthz:\n%.2000s", body)
			}
		})

		t.Run("openapi document", func(t *testing.T) {
			r := e.get(t, "/openapi.yaml").want(t, http.StatusOK)
			if !strings.HasPrefix(string(r.Body), "openapi: 3.1") || !strings.Contains(r.Header.Get("Content-Type"), "yaml") {
				t.Errorf("Content-Type %q, body %.60q", r.Header.Get("Content-Type"), r.Body)
			}
		})

		t.Run("spec limits", func(t *testing.T) {
			r := e.owner(t, e.biz).get(t, "/me").want(t, http.StatusOK)
			if r.Header.Get("X-RateLimit-Limit") != "240" || r.Header.Get("X-RateLimit-Remaining") != "239" {
				t.Errorf("X-RateLimit-Limit/Remaining = %q/%q, want 240/239",
					r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
			}
		})

		// Unknown routes are not in the document, so these responses are
		// checked by hand rather than by the validator.
		t.Run("unknown path", func(t *testing.T) {
			for _, p := range []string{"/nope", "/customers/0123456789abcdef0123456789abcdef/nope"} {
				r := e.sendUnchecked(t, e.newRequest(t, http.MethodGet, p, nil))
				r.wantError(t, http.StatusNotFound)
				if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("%s: Content-Type %q", p, ct)
				}
			}
		})

		t.Run("wrong method", func(t *testing.T) {
			for path, allow := range map[string][]string{"/customers": {"GET", "POST"}, "/me": {"GET"}, "/oauth/token": {"POST"}} {
				r := e.sendUnchecked(t, e.newRequest(t, http.MethodPatch, path, "{}"))
				r.wantError(t, http.StatusMethodNotAllowed)
				for _, m := range allow {
					if !strings.Contains(r.Header.Get("Allow"), m) {
						t.Errorf("PATCH %s: Allow %q lacks %s", path, r.Header.Get("Allow"), m)
					}
				}
			}
		})

		// Last: it closes the database handle, as an outage would.
		t.Run("readyz without a database", func(t *testing.T) {
			e.app.DB.SQL().Close()
			if st := str(e.get(t, "/readyz").want(t, http.StatusServiceUnavailable).obj(t)["status"]); st != "unavailable" {
				t.Errorf("status %q", st)
			}
			e.get(t, "/healthz").want(t, http.StatusOK) // still alive
		})
	})
}

// TestAdminCLI covers support's command line with --json: one JSON object
// with the documented keys on success, an error and nothing on stdout for
// bad arguments.
func TestAdminCLI(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		dsn, dir := testenv.DSN(t, engine), t.TempDir()
		ok := func(t *testing.T, keys []string, args ...string) map[string]any {
			t.Helper()
			stdout, stderr, err := runCLI(dsn, dir, args...)
			if err != nil {
				t.Fatalf("loyalty %s: %v (stderr %s)", strings.Join(args, " "), err, stderr)
			}
			if stderr != "" {
				t.Errorf("loyalty %s: stderr %q, want nothing on success", strings.Join(args, " "), stderr)
			}
			if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
				t.Errorf("loyalty %s: stdout is not one line: %q", strings.Join(args, " "), stdout)
			}
			obj := oneJSONObject(t, stdout)
			if len(obj) != len(keys) {
				t.Errorf("loyalty %s: keys of %v, want exactly %v", strings.Join(args, " "), obj, keys)
			}
			for _, k := range keys {
				if _, ok := obj[k]; !ok {
					t.Errorf("loyalty %s: %v lacks %q", strings.Join(args, " "), obj, k)
				}
			}
			return obj
		}
		fails := func(t *testing.T, want string, args ...string) {
			t.Helper()
			stdout, _, err := runCLI(dsn, dir, args...)
			if err == nil {
				t.Fatalf("loyalty %s: no error", strings.Join(args, " "))
			}
			// cmd/loyalty prints the error on stderr and exits 2 (usage) or 1.
			if !strings.Contains(err.Error(), want) {
				t.Errorf("loyalty %s: error %q does not mention %q", strings.Join(args, " "), err, want)
			}
			if stdout != "" {
				t.Errorf("loyalty %s: stdout %q, want nothing", strings.Join(args, " "), stdout)
			}
		}

		t.Run("migrate", func(t *testing.T) {
			for range 2 { // a second run has nothing to do and still succeeds
				if out := ok(t, []string{"status", "db", "database"}, "migrate"); out["db"] != engine {
					t.Errorf("migrate: %v", out)
				}
			}
		})

		t.Run("create business, coalition and app", func(t *testing.T) {
			biz := ok(t, []string{"business_id", "application_key", "owner_id", "database"}, "admin", "business", "create",
				"--name", "Corner Cafe", "--loyalty-type", "per_visit", "--owner-email", "cli@shop.example", "--owner-password", "long-enough")
			if !hexID.MatchString(str(biz["business_id"])) || !hexID.MatchString(str(biz["owner_id"])) || len(str(biz["application_key"])) < 32 {
				t.Errorf("business: %v", biz)
			}
			co := ok(t, []string{"coalition_id", "application_key", "database"}, "admin", "coalition", "create", "--name", "Downtown")
			ok(t, []string{"business_id", "application_key", "owner_id", "database"}, "admin", "business", "create", "--name", "Member",
				"--loyalty-type", "per_spend", "--owner-email", "member@shop.example", "--owner-password", "long-enough",
				"--coalition", str(co["coalition_id"]))
			app := ok(t, []string{"client_id", "client_secret", "approved", "database"}, "admin", "app", "create",
				"--name", "POS", "--api", "business", "--grant", "password")
			if app["approved"] != false || str(app["client_secret"]) == "" {
				t.Errorf("app: %v", app)
			}
			ok(t, []string{"client_id", "approved", "database"}, "admin", "app", "approve", str(app["client_id"]))
		})

		t.Run("bad arguments", func(t *testing.T) {
			fails(t, "--name", "admin", "business", "create", "--loyalty-type", "per_spend",
				"--owner-email", "x@shop.example", "--owner-password", "long-enough")
			fails(t, "--loyalty-type", "admin", "business", "create", "--name", "X", "--loyalty-type", "points",
				"--owner-email", "x@shop.example", "--owner-password", "long-enough")
			fails(t, "--owner-password", "admin", "business", "create", "--name", "X", "--loyalty-type", "per_spend",
				"--owner-email", "x@shop.example", "--owner-password", "short")
			fails(t, "--owner-email", "admin", "business", "create", "--name", "X", "--loyalty-type", "per_spend",
				"--owner-email", "cli@shop.example", "--owner-password", "long-enough") // taken above
			fails(t, "--coalition", "admin", "business", "create", "--name", "X", "--loyalty-type", "per_spend",
				"--owner-email", "y@shop.example", "--owner-password", "long-enough", "--coalition", "0123456789abcdef0123456789abcdef")
			fails(t, "--api", "admin", "app", "create", "--name", "X", "--api", "both", "--grant", "password")
			fails(t, "--redirect-uri", "admin", "app", "create", "--name", "X", "--api", "business", "--grant", "authorization_code")
			fails(t, "CLIENT_ID", "admin", "app", "approve")
			fails(t, "not found", "admin", "app", "approve", "0123456789abcdef0123456789abcdef")
		})
	})
}

// TestGracefulShutdown serves the app with app.Serve, cancels its context
// while a request is in flight, and checks that the request still
// completes, that new connections are refused, and that Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.owner(t, e.biz)

		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		served := make(chan error, 1)
		go func() { served <- e.app.Serve(ctx, ln) }()

		// A request before shutdown.
		req := e.newRequest(t, http.MethodGet, "/readyz", nil)
		req.URL.Host = addr
		e.send(t, req).want(t, http.StatusOK)

		// A request in flight: headers sent with Expect: 100-continue; the
		// server's "100 Continue" shows the handler is reading the body.
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		body := `{"email":"in.flight@x.example"}`
		fmt.Fprintf(conn, "POST /customers HTTP/1.1\r\nHost: %s\r\nX-Application-Key: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", addr, owner.key, owner.token, len(body))
		br := bufio.NewReader(conn)
		cont, err := http.ReadResponse(br, nil)
		if err != nil || cont.StatusCode != http.StatusContinue {
			t.Fatalf("want 100 Continue, got %v %v", cont, err)
		}

		cancel()
		deadline := time.Now().Add(5 * time.Second)
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				break // no longer accepting
			}
			c.Close()
			if time.Now().After(deadline) {
				t.Fatal("still accepting connections 5s after cancel")
			}
			time.Sleep(10 * time.Millisecond)
		}
		select {
		case err := <-served:
			t.Fatalf("Serve returned (%v) with a request in flight", err)
		default:
		}

		io.WriteString(conn, body)
		req = owner.request(t, http.MethodPost, "/customers", body)
		req.URL.Host = addr
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("in-flight request: %v", err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		e.v.Check(t, req, resp, got)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), "in.flight@x.example") {
			t.Fatalf("in-flight request: %d %s", resp.StatusCode, got)
		}

		select {
		case err := <-served:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after the in-flight request finished")
		}
		// The customer was stored.
		if l := owner.list(t, "email=eq|in.flight@x.example"); len(l.Data) != 1 {
			t.Errorf("in-flight customer not stored: %v", l.ids())
		}
	})
}
