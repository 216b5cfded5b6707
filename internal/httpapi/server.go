// Package httpapi serves Loyalty's JSON APIs over net/http: routes,
// envelopes, filters, paging, versioning, rate limits, and the single map
// from domain errors to statuses.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/loyalty/loyalty/api"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/ratelimit"
)

// Store is what the HTTP layer reads directly: Application Keys and the
// businesses of the token endpoint, the readiness check, and the ledger's
// list reads; everything else goes through the services.
type Store interface {
	loyalty.Store
	Tenant(ctx context.Context, key string) (loyalty.Tenant, error)
	// AccessWithBusiness finds a token by its access hash with the Application
	// Key and the token's business with its ledger state, in one query.
	AccessWithBusiness(ctx context.Context, accessHash []byte, appKey string) (oauth.Token, loyalty.Business, error)
	Business(ctx context.Context, id string) (loyalty.Business, error)
	Ping(ctx context.Context) error
}

// Limits are the request budgets per minute.
type Limits struct {
	Business int // per token, or per IP without one
	User     int // per token, or per IP without one
	Token    int // token endpoint, per IP
	Window   time.Duration
	// Guesses is how many failed credential checks one client IP may make
	// per ratelimit.DefaultGuessWindow (password and PIN grants and the
	// portals' sign-in together); 0: ratelimit.DefaultGuesses.
	Guesses int
}

// DefaultLimits are the spec's section 8 limits.
var DefaultLimits = Limits{Business: 240, User: 60, Token: 60, Window: time.Minute, Guesses: ratelimit.DefaultGuesses}

// Server holds what the handlers need. The handlers call the services,
// which app builds once and shares with the pages.
type Server struct {
	// Services are the domain services (all required), on the real clock:
	// handlers call them on their business's clock (reqCtx.svc).
	Services loyalty.Services
	Store    Store
	OAuth    *oauth.Server
	Limiter  ratelimit.Limiter
	Limits   Limits
	// Guesses is the budget of failed credential checks per client IP,
	// shared with the portals' sign-in; nil: none.
	Guesses *ratelimit.Guesses
	// WakeWebhooks, when set, makes the webhook worker look for due
	// deliveries at once (after a manual retry).
	WakeWebhooks func()
	// ClientIP, when set, tells the client's address (behind trusted
	// proxies) for per-IP limits and logs; nil: the connection's peer.
	ClientIP func(*http.Request) string
	Logger   *slog.Logger
	Registry *prometheus.Registry
	// Pages, when set, registers the server-rendered pages (portals and
	// the authorization flow) on the same mux.
	Pages interface{ Register(*http.ServeMux) }
	// BaseURL, when set, is the scheme and host the client reached the
	// service at (behind trusted proxies too), the issuer of the OAuth
	// metadata; nil: read from the request.
	BaseURL func(*http.Request) string
	// ImageDir is where the user API keeps profile images; default
	// data/images.
	ImageDir string
	// Passes signs the members' wallet passes; nil: none offered.
	Passes *Passes

	metrics *metrics
	mux     *http.ServeMux
}

// Handler returns the service's root handler.
func (s *Server) Handler() http.Handler {
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	if s.Limits.Window == 0 {
		s.Limits = DefaultLimits
	}
	if s.Registry == nil {
		s.Registry = prometheus.NewRegistry()
	}
	if s.ImageDir == "" {
		s.ImageDir = filepath.Join("data", "images")
	}
	s.metrics = newMetrics(s.Registry, s.Limiter)
	s.mux = http.NewServeMux()
	s.routes()
	return s.observe(s.mux)
}

// health answers the liveness check.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// openAPI serves the API's description.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Write(api.OpenAPI)
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.Store.Ping(ctx); err != nil {
		s.Logger.ErrorContext(ctx, "readiness check failed", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	body := map[string]string{"status": "ok"}
	if f, ok := s.Limiter.(*ratelimit.Failover); ok {
		// Still ready without Redis: this instance enforces every limit
		// itself (per instance rather than shared) until Redis answers.
		body["redis"] = "up"
		if !f.Up() {
			body["status"], body["redis"] = "degraded", "unreachable"
		}
	}
	writeJSON(w, http.StatusOK, body)
}
