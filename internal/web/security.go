package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// csrfCookie holds the browser's CSRF secret. Forms carry it masked with a
// fresh one-time pad, so the token on a page differs on every render.
const csrfCookie = "loyalty_csrf"

const csrfLen = 32

// csrfSecret returns the secret of the browser's CSRF cookie.
func csrfSecret(r *http.Request) ([]byte, bool) {
	c, err := r.Cookie(csrfCookie)
	if err != nil {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	return b, err == nil && len(b) == csrfLen
}

// csrfToken returns a token for the forms of a page, setting the CSRF
// cookie when the browser has none yet.
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	secret, ok := csrfSecret(r)
	if !ok {
		secret = randomBytes(csrfLen)
		s.setCookie(w, r, csrfCookie, base64.RawURLEncoding.EncodeToString(secret), 0)
		// Later renders in this request see the same secret.
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: base64.RawURLEncoding.EncodeToString(secret)})
	}
	pad := randomBytes(csrfLen)
	out := make([]byte, 2*csrfLen)
	copy(out, pad)
	for i := range secret {
		out[csrfLen+i] = pad[i] ^ secret[i]
	}
	return base64.RawURLEncoding.EncodeToString(out)
}

// validCSRF reports whether a post carries a token matching its cookie.
func (s *Server) validCSRF(r *http.Request) bool {
	secret, ok := csrfSecret(r)
	if !ok {
		return false
	}
	tok, err := base64.RawURLEncoding.DecodeString(r.PostForm.Get("csrf_token"))
	if err != nil || len(tok) != 2*csrfLen {
		return false
	}
	got := make([]byte, csrfLen)
	for i := range got {
		got[i] = tok[i] ^ tok[csrfLen+i]
	}
	return subtle.ConstantTimeCompare(got, secret) == 1
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}

// setCookie sets a cookie the way every cookie of the pages is set:
// HttpOnly, SameSite=Lax, Secure when the request came over HTTPS. maxAge
// 0 makes a browser-session cookie; a negative one deletes it.
func (s *Server) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.Transport.IsHTTPS(r)})
}

// Transport says how requests reach the service: straight from clients, or
// through TLS-terminating proxies whose X-Forwarded-* headers are trusted.
type Transport struct {
	BehindProxy    bool
	TrustedProxies []netip.Prefix
}

// ParseProxies reads proxy addresses: CIDR blocks or single IPs. With none
// given, a proxy on the same machine (loopback) is trusted.
func ParseProxies(list []string) ([]netip.Prefix, error) {
	if len(list) == 0 {
		return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}, nil
	}
	var out []netip.Prefix
	for _, item := range list {
		for _, s := range strings.Split(item, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			if p, err := netip.ParsePrefix(s); err == nil {
				out = append(out, p.Masked())
			} else if a, err := netip.ParseAddr(s); err == nil {
				out = append(out, netip.PrefixFrom(a, a.BitLen()))
			} else {
				return nil, fmt.Errorf("trusted proxy %q is neither an IP address nor a CIDR block", s)
			}
		}
	}
	return out, nil
}

// peer is the address the connection came from.
func peer(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}

// fromProxy reports whether r came through a trusted proxy.
func (t Transport) fromProxy(r *http.Request) bool {
	return t.BehindProxy && t.trusts(peer(r))
}

// IsHTTPS reports whether the client reached the service over HTTPS: TLS
// on this connection, or a trusted proxy saying so.
func (t Transport) IsHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if !t.fromProxy(r) {
		return false
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	return strings.EqualFold(strings.TrimSpace(proto), "https")
}

// BaseURL is the scheme and host the client reached the service at: the
// request's Host, or behind a trusted proxy the X-Forwarded-Host it sets.
func (t Transport) BaseURL(r *http.Request) string {
	host := r.Host
	if t.fromProxy(r) {
		if fh, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Host"), ","); strings.TrimSpace(fh) != "" {
			host = strings.TrimSpace(fh)
		}
	}
	if t.IsHTTPS(r) {
		return "https://" + host
	}
	return "http://" + host
}

// secureEnough reports whether the authorization endpoints may answer r:
// over HTTPS, or plain HTTP straight from this machine (development).
func (t Transport) secureEnough(r *http.Request) bool {
	return t.IsHTTPS(r) || (!t.fromProxy(r) && peer(r).IsLoopback())
}

// ClientIP is the client's address: the peer, or behind trusted proxies
// the nearest X-Forwarded-For hop that is not one of them. Hops are read
// from the right, across every X-Forwarded-For line (a proxy may add its
// own line after the client's), so a client cannot choose its address.
func (t Transport) ClientIP(r *http.Request) string {
	if t.fromProxy(r) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			if !t.trusts(a.Unmap()) {
				return a.Unmap().String()
			}
		}
	}
	return peer(r).String()
}

func (t Transport) trusts(a netip.Addr) bool {
	for _, pr := range t.TrustedProxies {
		if pr.Contains(a) {
			return true
		}
	}
	return false
}

// RequireHTTPS refuses plain-HTTP requests to the authorization, token and
// revocation endpoints (spec section 5.5) unless they come from this
// machine.
func (s *Server) RequireHTTPS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if (p == "/oauth/authorize" || p == "/oauth/token" || p == "/oauth/revoke") && !s.Transport.secureEnough(r) {
			s.Logger.WarnContext(r.Context(), "plain HTTP refused", "path", r.URL.Path, "remote", r.RemoteAddr)
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			if p != "/oauth/authorize" {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error":"invalid_request","error_description":"HTTPS is required."}` + "\n"))
				return
			}
			w.Header().Set("Content-Security-Policy", csp(""))
			s.render(w, r, http.StatusBadRequest, "error", view{Title: "HTTPS required", Narrow: true,
				Data: errorPage{Heading: "HTTPS required", Message: "Authorization is only available over a secure (https://) connection."}})
			return
		}
		next.ServeHTTP(w, r)
	})
}
