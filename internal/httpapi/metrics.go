package httpapi

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/loyalty/loyalty/internal/ratelimit"
)

// metrics are the service's Prometheus series.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// guesses counts failed credential checks of the password grant by
	// business (an alarm: a rise is someone guessing PINs or passwords),
	// and refusals of addresses whose budget of failures is spent.
	guesses *prometheus.CounterVec
	refused prometheus.Counter
}

func newMetrics(reg *prometheus.Registry, limiter ratelimit.Limiter) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loyalty_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "loyalty_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"}),
		guesses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loyalty_auth_failures_total", Help: "Failed password and PIN checks at the token endpoint, by business.",
		}, []string{"business"}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loyalty_auth_guess_refusals_total", Help: "Token requests refused because their address spent its budget of failed credential checks.",
		}),
	}
	reg.MustRegister(m.requests, m.duration, m.guesses, m.refused)
	if f, ok := limiter.(*ratelimit.Failover); ok {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "loyalty_ratelimit_redis_up",
			Help: "Whether rate limits are shared through Redis (1) or, Redis not answering, counted by each instance in memory (0).",
		}, func() float64 {
			if f.Up() {
				return 1
			}
			return 0
		}), prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "loyalty_ratelimit_redis_state_changes_total",
			Help: "Times the rate limiter found Redis down (start included) or back up.",
		}, func() float64 { return float64(f.StateChanges()) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "loyalty_ratelimit_instances",
			Help: "Instances sharing the rate limits, as last counted in Redis: while Redis is down each enforces its share of every limit.",
		}, func() float64 { return float64(f.Instances()) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "loyalty_ratelimit_redis_deadline_seconds",
			Help: "How long a call to Redis may wait, adapted to Redis's latency.",
		}, func() float64 { return f.Deadline().Seconds() }), prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "loyalty_ratelimit_redis_failures_total",
			Help: "Calls to Redis that failed or missed their deadline while it was taken for up (a request's is decided by this instance alone).",
		}, func() float64 { return float64(f.Failures()) }))
	}
	// A registry may be shared by several servers (tests); register the
	// process collectors once.
	_ = reg.Register(collectors.NewGoCollector())
	_ = reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{})
}
