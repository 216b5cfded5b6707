package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// recorder remembers the status and size of a response, and turns the
// mux's own plain-text 404 and 405 replies into JSON.
type recorder struct {
	http.ResponseWriter
	status  int
	bytes   int
	req     *http.Request // the mux sets its Pattern when a route matched
	swallow bool
}

func (rec *recorder) WriteHeader(status int) {
	if rec.status != 0 {
		return
	}
	rec.status = status
	if rec.req.Pattern == "" && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) {
		rec.swallow = true
		msg := "The requested resource does not exist."
		if status == http.StatusMethodNotAllowed {
			msg = "The method is not allowed on this resource."
		}
		h := rec.Header()
		b := []byte(fmt.Sprintf(`{"error":{"status_code":%d,"message":%q,"description":%q}}`+"\n", status, msg, errorTitles[status]))
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(b)))
		rec.ResponseWriter.WriteHeader(status)
		n, _ := rec.ResponseWriter.Write(b)
		rec.bytes += n
		return
	}
	rec.ResponseWriter.WriteHeader(status)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	if rec.swallow {
		return len(b), nil
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// observe logs one JSON line per request, records metrics, recovers from
// panics, answers unmatched routes in JSON, and forbids content sniffing
// on every response.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// The mux records the matched pattern on r itself, so the route is
		// known without routing twice.
		rec := &recorder{ResponseWriter: w, req: r}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.Logger.ErrorContext(r.Context(), "panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
				if rec.status == 0 {
					writeStatus(rec, businessAPI, http.StatusInternalServerError, "Internal error.")
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			d := time.Since(start)
			s.metrics.requests.WithLabelValues(route, r.Method, strconv.Itoa(rec.status)).Inc()
			s.metrics.duration.WithLabelValues(route).Observe(d.Seconds())
			level := slog.LevelInfo
			if rec.status >= 500 {
				level = slog.LevelError
			}
			s.Logger.LogAttrs(r.Context(), level, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", route),
				slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
				slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.String("remote", s.clientIP(r)))
		}()
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
	})
}

// clientIP is the client's address: Server.ClientIP's answer, or the
// peer address of the request without the port.
func (s *Server) clientIP(r *http.Request) string {
	if s.ClientIP != nil {
		return s.ClientIP(r)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// acceptable reports whether the Accept header asks for version 1 of the
// API (or anything JSON), and whether it named another version.
func acceptable(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		switch {
		case mt == "" || mt == "*/*" || mt == "application/*" || mt == "application/json":
			return true
		case strings.HasPrefix(mt, "application/vnd.") && strings.HasSuffix(mt, ".api.v1+json"):
			return true
		}
	}
	return false
}

// reqCtx is what an authenticated business-API request carries.
type reqCtx struct {
	tenant     loyalty.Tenant
	token      oauth.Token
	businessID string
	business   *loyalty.Business // the business with its ledger state, on ledger routes
	// svc are the services on the clock of the key's business (its
	// sandbox clock, if any): whatever the handler does goes through them.
	svc loyalty.Services
}

// handlerFunc is an API handler that returns its error for the wrapper
// to write in the API's shape.
type handlerFunc func(w http.ResponseWriter, r *http.Request, rc *reqCtx) error

// limitKey is the rate-limit key of a request: its bearer token (hashed, so
// the limiter never holds a credential), or its client IP.
func (s *Server) limitKey(prefix string, r *http.Request) string {
	if tok := bearer(r); tok != "" {
		sum := sha256.Sum256([]byte(tok))
		return prefix + ":t:" + hex.EncodeToString(sum[:16])
	}
	return prefix + ":ip:" + s.clientIP(r)
}

// bearer returns the token of an Authorization: Bearer header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// limit counts the request and sets the rate-limit headers; it reports
// false (having answered 429) when the budget is spent.
func (s *Server) limit(w http.ResponseWriter, r *http.Request, which apiKind, key string, limit int) bool {
	res, err := s.Limiter.Allow(r.Context(), key, limit, s.Limits.Window)
	if err != nil {
		// A limiter outage must not take the API down with it.
		s.Logger.ErrorContext(r.Context(), "rate limiter failed", "err", err)
		return true
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	if !res.Allowed {
		secs := int(time.Until(res.Reset).Seconds() + 0.999)
		if secs < 1 {
			secs = 1
		}
		h.Set("X-RateLimit-Reset", strconv.FormatInt(res.Reset.Unix(), 10))
		h.Set("Retry-After", strconv.Itoa(secs))
		writeStatus(w, which, http.StatusTooManyRequests, "Too many requests; slow down.")
		return false
	}
	return true
}

// business wraps a business-API handler: version, rate limit, Application
// Key, bearer token with the admin scope of the key's business.
func (s *Server) business(h handlerFunc) http.Handler { return s.businessAPI(h, false) }

// withBusiness is business for a handler that writes or decides
// transactions (POST /transactions, POST /baskets/evaluate): the token
// lookup also reads the business with its rules, offers and earning rules
// into reqCtx.business, and the access cache keeps them.
func (s *Server) withBusiness(h handlerFunc) http.Handler { return s.businessAPI(h, true) }

func (s *Server) businessAPI(h handlerFunc, withBusiness bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc, ok, err := s.admit(w, r, businessAPI, "b", s.Limits.Business, oauth.ScopeAdmin, withBusiness)
		if !ok {
			return
		}
		if err == nil {
			err = h(w, r, rc)
		}
		if err != nil {
			s.writeError(w, r, businessAPI, err)
		}
	})
}

// notAcceptable is the 406 message of both APIs.
const notAcceptable = "Only version 1 of the API is available (Accept: application/vnd.loyalty.api.v1+json)."

// admit is what every authenticated request of either API goes through:
// the rate limit (counted first, so every response carries its headers),
// the version, the text of the path, query and key (requestTextError),
// then the Application Key and a bearer token of scope. A
// failed token also spends the client's IP budget, since each made-up
// token would otherwise get a fresh one. ok is false when the response is
// already written; otherwise err is the authentication error, if any.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, which apiKind, prefix string, limit int, scope string, withBusiness bool) (rc *reqCtx, ok bool, err error) {
	if !s.limit(w, r, which, s.limitKey(prefix, r), limit) {
		return nil, false, nil
	}
	if !acceptable(r.Header.Get("Accept")) {
		writeStatus(w, which, http.StatusNotAcceptable, notAcceptable)
		return nil, false, nil
	}
	if err = requestTextError(r); err != nil {
		return nil, true, err
	}
	rc, err = s.authenticate(r, scope, withBusiness)
	if loyalty.ErrorCode(err) == loyalty.EUnauthorized {
		w.Header().Set("WWW-Authenticate", bearerChallenge(err))
		if bearer(r) != "" && !s.limit(w, r, which, prefix+":ip:"+s.clientIP(r), limit) {
			return nil, false, nil
		}
	}
	return rc, true, err
}

// errInvalidToken is authenticate's error for a bearer token that was sent
// but is unknown, expired or revoked, or whose app is suspended.
var errInvalidToken = loyalty.Errorf(loyalty.EUnauthorized, "The access token is invalid, expired or revoked.")

// bearerChallenge is the WWW-Authenticate header of an API 401 (RFC 6750
// section 3): error="invalid_token" for a token that does not work, and no
// error attributes when none was sent (section 3.1) or when the
// Application Key is what failed.
func bearerChallenge(err error) string {
	if errors.Is(err, errInvalidToken) {
		return `Bearer realm="loyalty", error="invalid_token", error_description="` + loyalty.ErrorMessage(err) + `"`
	}
	return `Bearer realm="loyalty"`
}

// authenticate resolves the Application Key and the bearer token and
// checks that they belong together and carry scope; withBusiness also
// reads the token's business with its ledger state.
func (s *Server) authenticate(r *http.Request, scope string, withBusiness bool) (*reqCtx, error) {
	key := r.Header.Get("X-Application-Key")
	if key == "" {
		return nil, loyalty.Errorf(loyalty.EUnauthorized, "The X-Application-Key header is required.")
	}
	tok := bearer(r)
	t, b, err := s.token(r.Context(), tok, key, withBusiness)
	if t.Key.Key == "" && (err == nil || errors.Is(err, oauth.ErrTokenInvalid)) {
		// Tell a bad key from a bad token: the key is checked first.
		if t.Key, err = s.Store.Tenant(r.Context(), key); err != nil {
			return nil, err
		}
		err = oauth.ErrTokenInvalid
	}
	if errors.Is(err, oauth.ErrTokenInvalid) {
		if tok == "" {
			return nil, loyalty.Errorf(loyalty.EUnauthorized, "An Authorization: Bearer access token is required.")
		}
		return nil, errInvalidToken
	} else if err != nil {
		return nil, err
	}
	tenant := t.Key
	if t.Scope != scope {
		return nil, loyalty.Errorf(loyalty.EForbidden, "This token's scope (%s) does not allow this API; %s is required.", t.Scope, scope)
	}
	if t.TenantID != tenant.ID() {
		return nil, loyalty.Errorf(loyalty.EForbidden, "This token belongs to another business than the Application Key.")
	}
	rc := &reqCtx{tenant: tenant, token: t, businessID: t.BusinessID, svc: s.Services.ClockedBy(tenant.ClockOffset)}
	if withBusiness {
		if b.ID == "" || b.ID != t.BusinessID {
			// Admin tokens always name their business; a ledger route needs it.
			return nil, loyalty.Errorf(loyalty.EForbidden, "This token belongs to no business.")
		}
		rc.business = &b
	}
	return rc, nil
}

// token checks the bearer token tok sent with the Application Key key;
// withBusiness also returns the token's business with its ledger state,
// read in the same query as the token (zero when it names none).
func (s *Server) token(ctx context.Context, tok, key string, withBusiness bool) (oauth.Token, loyalty.Business, error) {
	if !withBusiness {
		t, err := s.OAuth.AuthenticateForKey(ctx, tok, key)
		return t, loyalty.Business{}, err
	}
	var b loyalty.Business
	t, err := s.OAuth.AuthenticateWith(ctx, tok, func(ctx context.Context, accessHash []byte) (oauth.Token, error) {
		found, business, err := s.Store.AccessWithBusiness(ctx, accessHash, key)
		b = business
		return found, err
	})
	return t, b, err
}
