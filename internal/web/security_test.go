package web

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func mustProxies(t *testing.T, list ...string) Transport {
	t.Helper()
	p, err := ParseProxies(list)
	if err != nil {
		t.Fatal(err)
	}
	return Transport{BehindProxy: true, TrustedProxies: p}
}

// TestRequireHTTPS: plain HTTP to the authorization and token endpoints
// is refused (spec 5.5) unless it is TLS, comes through a trusted proxy
// that says https, or comes straight from this machine.
func TestRequireHTTPS(t *testing.T) {
	direct := Transport{}
	proxied := mustProxies(t, "10.0.0.0/8", "192.168.1.7")
	cases := []struct {
		name   string
		tr     Transport
		remote string
		proto  string // X-Forwarded-Proto
		tls    bool
		path   string
		ok     bool
	}{
		{"loopback, plain (development)", direct, "127.0.0.1:5555", "", false, "/oauth/authorize", true},
		{"IPv6 loopback, plain", direct, "[::1]:5555", "", false, "/oauth/token", true},
		{"remote, plain", direct, "203.0.113.9:5555", "", false, "/oauth/authorize", false},
		{"remote, plain, token endpoint", direct, "203.0.113.9:5555", "", false, "/oauth/token", false},
		{"remote, TLS", direct, "203.0.113.9:5555", "", true, "/oauth/token", true},
		{"remote claims https but no proxy is trusted", direct, "203.0.113.9:5555", "https", false, "/oauth/authorize", false},
		{"other pages are not guarded", direct, "203.0.113.9:5555", "", false, "/developers", true},
		{"trusted proxy, https", proxied, "10.1.2.3:5555", "https", false, "/oauth/authorize", true},
		{"trusted proxy (single IP), https", proxied, "192.168.1.7:5555", "HTTPS", false, "/oauth/token", true},
		{"trusted proxy, http", proxied, "10.1.2.3:5555", "http", false, "/oauth/authorize", false},
		{"trusted proxy, no header", proxied, "10.1.2.3:5555", "", false, "/oauth/token", false},
		{"untrusted peer claims https", proxied, "203.0.113.9:5555", "https", false, "/oauth/token", false},
		{"loopback proxy trusted by default says http", mustProxies(t), "127.0.0.1:5555", "http", false, "/oauth/authorize", false},
		{"loopback proxy trusted by default says https", mustProxies(t), "127.0.0.1:5555", "https", false, "/oauth/authorize", true},
		{"loopback, not a trusted proxy (development)", proxied, "127.0.0.1:5555", "", false, "/oauth/authorize", true},
		{"remote, plain, revocation endpoint", direct, "203.0.113.9:5555", "", false, "/oauth/revoke", false},
		{"trusted proxy, https, revocation endpoint", proxied, "10.1.2.3:5555", "https", false, "/oauth/revoke", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(Config{Transport: c.tr})
			if err != nil {
				t.Fatal(err)
			}
			h := s.RequireHTTPS(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
			r := httptest.NewRequest(http.MethodGet, c.path, nil)
			r.RemoteAddr = c.remote
			if c.proto != "" {
				r.Header.Set("X-Forwarded-Proto", c.proto)
			}
			if c.tls {
				r.TLS = &tls.ConnectionState{}
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if got := w.Code == http.StatusTeapot; got != c.ok {
				t.Fatalf("passed %v, want %v (status %d: %s)", got, c.ok, w.Code, w.Body)
			}
			if !c.ok && w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("refusal without X-Content-Type-Options: nosniff")
			}
			if !c.ok && c.path != "/oauth/authorize" && !strings.Contains(w.Body.String(), `"invalid_request"`) {
				t.Errorf("token endpoint refusal %q, want an RFC 6749 invalid_request", w.Body)
			}
			if !c.ok && c.path == "/oauth/authorize" && (w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "HTTPS required")) {
				t.Errorf("authorize refusal %d %q, want the HTTPS-required page", w.Code, w.Body)
			}
		})
	}
}

// TestParseProxies: CIDR blocks and single IPs, and nothing else.
func TestParseProxies(t *testing.T) {
	if _, err := ParseProxies([]string{"10.0.0.0/8,not-an-ip"}); err == nil {
		t.Error("a bad proxy address was accepted")
	}
	tr := mustProxies(t, "10.0.0.0/8, 2001:db8::/32")
	for addr, want := range map[string]bool{"10.9.9.9": true, "2001:db8::1": true, "11.0.0.1": false, "127.0.0.1": false} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = addr + ":1"
		if addr == "2001:db8::1" {
			r.RemoteAddr = "[2001:db8::1]:1"
		}
		if got := tr.fromProxy(r); got != want {
			t.Errorf("%s trusted %v, want %v", addr, got, want)
		}
	}
}

// TestClientIP: behind trusted proxies the client is the nearest
// forwarded address that is not a proxy; a forged header from the client
// itself changes nothing.
func TestClientIP(t *testing.T) {
	tr := mustProxies(t, "10.0.0.0/8")
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.0.0.2:1"
	r.Header.Set("X-Forwarded-For", "1.1.1.1, 203.0.113.5, 10.0.0.9")
	if got := tr.ClientIP(r); got != "203.0.113.5" {
		t.Errorf("behind proxies: %s, want 203.0.113.5", got)
	}
	r.Header.Set("X-Forwarded-For", "1.1.1.1")
	r.Header.Add("X-Forwarded-For", "203.0.113.6, 10.0.0.9")
	if got := tr.ClientIP(r); got != "203.0.113.6" {
		t.Errorf("behind proxies, a forged line before the proxy's: %s, want 203.0.113.6", got)
	}
	r.RemoteAddr = "203.0.113.7:1"
	if got := tr.ClientIP(r); got != "203.0.113.7" {
		t.Errorf("direct, forged header: %s, want the peer", got)
	}
}

// TestCSRFToken: a token matches its cookie, differs at every render
// (masked, against BREACH), and matches no other cookie.
func TestCSRFToken(t *testing.T) {
	s := &Server{}
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	tok1 := s.csrfToken(w, r)
	tok2 := s.csrfToken(w, r)
	cookies := w.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Name != csrfCookie || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteLaxMode {
		t.Fatalf("cookies %+v, want one HttpOnly SameSite=Lax CSRF cookie", cookies)
	}
	if tok1 == tok2 {
		t.Error("two renders gave the same token")
	}
	post := func(cookie, token string) bool {
		form := url.Values{"csrf_token": {token}}
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if cookie != "" {
			r.AddCookie(&http.Cookie{Name: csrfCookie, Value: cookie})
		}
		r.ParseForm()
		return s.validCSRF(r)
	}
	c := cookies[0].Value
	if !post(c, tok1) || !post(c, tok2) {
		t.Error("a rendered token was refused")
	}
	other := httptest.NewRecorder()
	s.csrfToken(other, httptest.NewRequest(http.MethodGet, "/", nil))
	for name, ok := range map[string]bool{
		"no cookie":    post("", tok1),
		"other cookie": post(other.Result().Cookies()[0].Value, tok1),
		"no token":     post(c, ""),
		"the cookie":   post(c, c),
		"garbage":      post(c, "!!"),
	} {
		if ok {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestBaseURL: the issuer of the OAuth metadata is the URL the client
// reached: the Host and the connection's scheme, or behind a trusted proxy
// its X-Forwarded-Proto and X-Forwarded-Host; an untrusted peer's headers
// change nothing.
func TestBaseURL(t *testing.T) {
	proxied := mustProxies(t, "10.0.0.0/8")
	cases := []struct {
		name, remote, proto, fwdHost string
		tr                           Transport
		tls                          bool
		want                         string
	}{
		{"plain", "127.0.0.1:1", "", "", Transport{}, false, "http://loyalty.test:8080"},
		{"TLS", "203.0.113.9:1", "", "", Transport{}, true, "https://loyalty.test:8080"},
		{"trusted proxy", "10.0.0.2:1", "https", "loyalty.example", proxied, false, "https://loyalty.example"},
		{"trusted proxy, no forwarded host", "10.0.0.2:1", "https", "", proxied, false, "https://loyalty.test:8080"},
		{"untrusted peer", "203.0.113.9:1", "https", "evil.example", proxied, false, "http://loyalty.test:8080"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "/.well-known/oauth-authorization-server", nil)
		r.Host, r.RemoteAddr = "loyalty.test:8080", c.remote
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if c.fwdHost != "" {
			r.Header.Set("X-Forwarded-Host", c.fwdHost)
		}
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if got := c.tr.BaseURL(r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
