package node

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
)

// TestStrictClients runs the Node tests of this directory (*.test.mjs)
// against a running loyalty binary and fails on any Node failure. Without
// Node 20+ or the npm packages (npm ci here), it skips, or fails when CI
// is set: CI must run the strict clients.
func TestStrictClients(t *testing.T) {
	node := requireNode(t)
	files, err := filepath.Glob("*.test.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Node tests here (%v)", err)
	}
	bin := testenv.BuildLoyalty(t)
	dataDir := t.TempDir()
	run := func(args ...string) map[string]any {
		t.Helper()
		return testenv.RunJSON(t, bin, append(append([]string{"--data-dir", dataDir}, args...), "--json")...)
	}
	// Before serving: SQLite has one writer at a time.
	run("migrate")
	owner := map[string]string{"email": "owner@strict.example", "password": "Strict-pass_2026"}
	biz := run("admin", "business", "create", "--name", "Strict Cafe", "--loyalty-type", "per_spend",
		"--owner-email", owner["email"], "--owner-password", owner["password"])
	const redirect = "https://client.example/oauth/callback"
	pw := dashUnderscoreApp(t, run, "--api", "business", "--grant", "password")
	code := dashUnderscoreApp(t, run, "--api", "business", "--grant", "authorization_code", "--redirect-uri", redirect)

	base := serve(t, bin, dataDir)
	cmd := exec.Command(node, append([]string{"--test"}, files...)...)
	cmd.Env = append(os.Environ(),
		"LOYALTY_URL="+base,
		"LOYALTY_APP_KEY="+str(biz["application_key"]),
		"LOYALTY_BUSINESS_ID="+str(biz["business_id"]),
		"LOYALTY_OWNER_EMAIL="+owner["email"],
		"LOYALTY_OWNER_PASSWORD="+owner["password"],
		"LOYALTY_PASSWORD_CLIENT_ID="+str(pw["client_id"]),
		"LOYALTY_PASSWORD_CLIENT_SECRET="+str(pw["client_secret"]),
		"LOYALTY_CODE_CLIENT_ID="+str(code["client_id"]),
		"LOYALTY_CODE_CLIENT_SECRET="+str(code["client_secret"]),
		"LOYALTY_REDIRECT_URI="+redirect,
	)
	out, err := runWithTimeout(cmd, 5*time.Minute)
	t.Logf("node --test %s:\n%s", strings.Join(files, " "), out)
	if err != nil {
		t.Fatalf("the Node tests failed: %v", err)
	}
}

// unavailable skips the test, or fails it under CI.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: the strict clients must run)", msg)
	}
	t.Skip(msg)
}

// requireNode returns the node binary, checking it is Node 20 or later and
// that the npm packages are installed (installing them with npm ci when
// they are not).
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "node is not installed: %v", err)
	}
	v, err := exec.Command(node, "--version").Output()
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(v)), "v"), ".")
	if n, perr := strconv.Atoi(major); err != nil || perr != nil || n < 20 {
		unavailable(t, "node %q is not Node 20 or later (%v)", v, err)
	}
	installed := true
	for _, pkg := range []string{"oauth4webapi", "simple-oauth2", "standardwebhooks"} {
		if _, err := os.Stat(filepath.Join("node_modules", pkg, "package.json")); err != nil {
			installed = false
		}
	}
	if installed {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable(t, "the npm packages are not installed (npm ci in e2e/node) and npm is missing: %v", err)
	}
	out, err := runWithTimeout(exec.Command(npm, "ci", "--no-audit", "--no-fund"), 5*time.Minute)
	if err != nil {
		unavailable(t, "npm ci in e2e/node failed: %v\n%s", err, out)
	}
	return node
}

// dashUnderscoreApp creates approved apps until one's client secret holds
// both "-" and "_", the characters strict clients percent-encode in HTTP
// Basic (about one secret in four).
func dashUnderscoreApp(t *testing.T, run func(args ...string) map[string]any, args ...string) map[string]any {
	t.Helper()
	for i := range 100 {
		out := run(append([]string{"admin", "app", "create", "--name", "Strict client " + strconv.Itoa(i), "--approve"}, args...)...)
		if s := str(out["client_secret"]); strings.Contains(s, "-") && strings.Contains(s, "_") {
			return out
		}
	}
	t.Fatal("100 client secrets without both - and _")
	return nil
}

// serve starts the binary on a free loopback port and returns its base
// URL once /healthz answers; the process gets SIGTERM when the test ends.
func serve(t *testing.T, bin, dataDir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	logs := &syncBuffer{}
	// Webhook receivers of the Node tests listen on loopback.
	cmd := exec.Command(bin, "--data-dir", dataDir, "serve", "--addr", addr, "--webhooks-allow-private")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("loyalty serve log:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("loyalty serve exited: %v\n%s", err, logs.String())
		default:
		}
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("loyalty serve did not answer /healthz on %s within 30s\n%s", addr, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runWithTimeout runs cmd and returns its combined output; it is killed
// after d.
func runWithTimeout(cmd *exec.Cmd, d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("killed after %s", d)
	}
}

// syncBuffer is a bytes.Buffer safe for a process's two output streams.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
