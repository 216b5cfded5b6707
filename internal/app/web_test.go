package app

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
)

// TestServeTLS: with a certificate the service answers HTTPS, and its
// pages set Secure cookies.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	cert := testenv.SelfSigned(t)
	certFile, keyFile := cert.Files(t, dir)
	pool := cert.Pool
	a, err := Open(context.Background(), Config{DataDir: dir, TLSCert: certFile, TLSKey: keyFile,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get("https://" + ln.Addr().String() + "/developers")
	if err != nil {
		t.Fatalf("GET over HTTPS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Fatalf("status %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	if sc := resp.Header.Get("Set-Cookie"); !strings.Contains(sc, "Secure") {
		t.Errorf("Set-Cookie %q over HTTPS, want Secure", sc)
	}
}

// TestOpenRefusesBadHTTPSConfig: a missing key, an unreadable pair or a
// bad proxy address stops the service at start, not at the first request.
func TestOpenRefusesBadHTTPSConfig(t *testing.T) {
	dir := t.TempDir()
	certFile, _ := testenv.SelfSigned(t).Files(t, dir)
	for name, cfg := range map[string]Config{
		"cert without key": {TLSCert: certFile},
		"unreadable pair":  {TLSCert: certFile, TLSKey: filepath.Join(dir, "missing.pem")},
		"bad proxy":        {BehindProxy: true, TrustedProxies: []string{"10.0.0.0/33"}},
	} {
		cfg.DataDir, cfg.Logger = t.TempDir(), slog.New(slog.NewJSONHandler(io.Discard, nil))
		if a, err := Open(context.Background(), cfg); err == nil {
			a.Close()
			t.Errorf("%s: Open succeeded", name)
		}
	}
}
