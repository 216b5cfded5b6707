package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/cli"
	"github.com/loyalty/loyalty/internal/testenv"
)

// lockedBuffer is a buffer the server writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveBanner runs loyalty serve on dsn until it has announced itself,
// checks that it answers at the announced URL, stops it and returns the
// announcement: the one JSON log line "listening" (stderr is no terminal).
func serveBanner(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var stdout, stderr lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, append([]string{"loyalty", "serve", "--addr", "127.0.0.1:0"}, args...), &stdout, &stderr)
	}()
	defer func() {
		cancel()
		if code := <-done; code != cli.ExitOK {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(stderr.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "listening" {
				resp, err := http.Get(m["url"].(string) + "/healthz")
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s/healthz: %v %v", m["url"], resp, err)
				} else {
					resp.Body.Close()
				}
				if stdout.String() != "" {
					t.Errorf("serve wrote to stdout: %q", stdout.String())
				}
				return m
			}
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("serve exited %d before announcing itself: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no listening line within 20s: %s", stderr.String())
	return nil
}

func TestServeBanner(t *testing.T) {
	testenv.ForEach(t, func(t *testing.T, dsn string) {
		dir := t.TempDir()
		b := serveBanner(t, "--db", dsn, "--data-dir", dir)
		url, _ := b["url"].(string)
		if !strings.HasPrefix(url, "http://127.0.0.1:") || b["database"] != shown(t, dsn) ||
			b["email"] != "files in "+dir+"/outbox" || b["sms"] != "files in "+dir+"/outbox" || b["redis"] != "" {
			t.Errorf("banner = %v", b)
		}
		portals, _ := b["portals"].([]any)
		if len(portals) != 3 || portals[0] != url+"/developers" || portals[1] != url+"/support" || portals[2] != url+"/business" {
			t.Errorf("portals = %v", b["portals"])
		}
		if b["console"] != url+"/business" {
			t.Errorf("console = %v, want %s/business", b["console"], url)
		}
		next, _ := b["next"].(string)
		if b["empty"] != true || !strings.HasPrefix(next, "loyalty --db '"+shown(t, dsn)+"' admin business create ") {
			t.Errorf("on an empty database: empty %v, next %q", b["empty"], next)
		}

		admin(t, dsn, "business", "create", "--name", "Corner Cafe", "--loyalty-type", "per_spend",
			"--owner-email", "owner@cafe.example", "--owner-password", "change-me-now")
		if b := serveBanner(t, "--db", dsn, "--data-dir", dir); b["empty"] != nil || b["next"] != nil {
			t.Errorf("with a business, the banner still suggests a first one: %v", b)
		}
	})
}

func TestServeBannerHidesPasswords(t *testing.T) {
	dir := t.TempDir()
	b := serveBanner(t, "--data-dir", dir, "--redis", "redis://:r3dis-pass@127.0.0.1:6379/0",
		"--smtp", "smtp://mailer:sm7p-pass@127.0.0.1:2525")
	line, _ := json.Marshal(b)
	if strings.Contains(string(line), "r3dis-pass") || strings.Contains(string(line), "sm7p-pass") {
		t.Errorf("the banner shows a password: %s", line)
	}
	if b["redis"] != "redis://127.0.0.1:6379/0" {
		t.Errorf("redis = %v", b["redis"])
	}
	if b["email"] != "smtp://127.0.0.1:2525" {
		t.Errorf("email = %v", b["email"])
	}
	if next, _ := b["next"].(string); !strings.Contains(next, "--data-dir '"+dir+"' admin business create") {
		t.Errorf("next = %q, want the --data-dir of this server", next)
	}
}
