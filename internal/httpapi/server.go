// Package httpapi serves Loyalty's JSON APIs over net/http: routes,
// envelopes, filters, paging, versioning, rate limits, and the single map
// from domain errors to statuses.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/loyalty/loyalty/api"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/ratelimit"
)

// Store is what the HTTP layer reads directly.
type Store interface {
	loyalty.Store
	Tenant(ctx context.Context, key string) (loyalty.Tenant, error)
	Business(ctx context.Context, id string) (loyalty.Business, error)
	CouponByID(ctx context.Context, businessID string, id int64) (loyalty.Coupon, error)
	Ping(ctx context.Context) error
}

// Limits are the request budgets per minute.
type Limits struct {
	Business int // per token, or per IP without one
	User     int // per token, or per IP without one
	Token    int // token endpoint, per IP
	Window   time.Duration
}

// DefaultLimits are the spec's section 8 limits.
var DefaultLimits = Limits{Business: 240, User: 60, Token: 60, Window: time.Minute}

// Server holds what the handlers need.
type Server struct {
	Store        Store
	Customers    *loyalty.CustomerService
	Transactions *loyalty.TransactionService
	OAuth        *oauth.Server
	Limiter      ratelimit.Limiter
	Limits       Limits
	// ClientIP, when set, tells the client's address (behind trusted
	// proxies) for per-IP limits and logs; nil: the connection's peer.
	ClientIP func(*http.Request) string
	Logger   *slog.Logger
	Registry *prometheus.Registry
	// Pages, when set, registers the server-rendered pages (portals and
	// the authorization flow) on the same mux.
	Pages interface{ Register(*http.ServeMux) }
	// Users configures the user API (images, outbox wake-up).
	Users UserAPI

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
	s.metrics = newMetrics(s.Registry, s.Limiter)
	s.mux = http.NewServeMux()
	s.routes()
	return s.observe(s.mux)
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	m.HandleFunc("GET /readyz", s.ready)
	m.Handle("GET /metrics", s.metricsHandler())
	m.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(api.OpenAPI)
	})
	m.Handle("POST /oauth/token", s.tokenEndpoint())

	m.Handle("GET /me", s.business(s.getAccount))
	m.Handle("GET /customers", s.business(s.listCustomers))
	m.Handle("POST /customers", s.business(s.createCustomer))
	m.Handle("GET /customers/{id}", s.business(s.getCustomer))
	m.Handle("PUT /customers/{id}", s.business(s.updateCustomer))
	m.Handle("DELETE /customers/{id}", s.business(s.deleteCustomer))
	m.Handle("GET /customers/{id}/transactions", s.business(s.customerTransactions))

	m.Handle("POST /transactions", s.ledger(s.createTransaction))
	m.Handle("GET /transactions", s.business(s.listTransactions))
	m.Handle("DELETE /transactions/{id}", s.business(s.cancelTransaction))
	m.Handle("GET /rules", s.business(s.getRules))
	m.Handle("PATCH /rules", s.business(s.patchRules))
	s.catalogRoutes(m)
	s.tierRoutes(m)
	s.userRoutes(m)
	if s.Pages != nil {
		s.Pages.Register(m)
	}
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
