package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Failover is a Limiter that counts in Redis while Redis answers and, while
// it does not, in this instance's memory with the same limits: a circuit
// breaker around Redis. A failed or slow call (over Timeout) opens it; from
// then on no request waits on Redis: each is counted in memory while a
// background probe pings Redis every Interval, and its first answer closes
// the breaker, so the shared counts apply again. Counts made in memory
// during an outage stay in this instance; they are not carried to Redis.
type Failover struct {
	redis    *Redis
	memory   *Memory
	timeout  time.Duration
	interval time.Duration
	logger   *slog.Logger

	up      atomic.Bool
	changes atomic.Uint64

	mu     sync.Mutex // orders state changes (and their log lines) with Close
	closed bool
	stop   chan struct{}
	wg     sync.WaitGroup // the probe, while one runs
}

var _ Limiter = (*Failover)(nil)

// FailoverConfig tunes a Failover; zero fields take the defaults.
type FailoverConfig struct {
	// Timeout is the longest a request waits on Redis before it is counted
	// in memory instead (DefaultFailoverTimeout).
	Timeout time.Duration
	// Interval is how often a Redis known to be down is tried again
	// (DefaultFailoverInterval).
	Interval time.Duration
	// Logger gets one line per change of Redis's state (slog.Default).
	Logger *slog.Logger
}

// DefaultFailoverTimeout is FailoverConfig.Timeout's default: far above a
// healthy Redis's latency, and short enough that only the requests in
// flight when Redis stops answering ever wait.
const DefaultFailoverTimeout = 50 * time.Millisecond

// DefaultFailoverInterval is FailoverConfig.Interval's default.
const DefaultFailoverInterval = 500 * time.Millisecond

// connectTimeout bounds a probe's first ping, which may have to connect
// (TCP, TLS, AUTH): only its second ping must answer within Timeout.
const connectTimeout = 2 * time.Second

// NewFailover returns a Failover on r that owns r (Close closes it). It
// pings Redis once, waiting at most a couple of seconds: when Redis does
// not answer, the Failover starts open (counting in memory), says so in
// the log and keeps trying in the background.
func NewFailover(ctx context.Context, r *Redis, cfg FailoverConfig) *Failover {
	f := &Failover{redis: r, memory: NewMemory(), timeout: cfg.Timeout, interval: cfg.Interval,
		logger: cfg.Logger, stop: make(chan struct{})}
	if f.timeout <= 0 {
		f.timeout = DefaultFailoverTimeout
	}
	if f.interval <= 0 {
		f.interval = DefaultFailoverInterval
	}
	if f.logger == nil {
		f.logger = slog.Default()
	}
	f.up.Store(true)
	if err := f.ping(ctx); err != nil {
		f.markDown(err)
	}
	return f
}

// Allow counts one request for key against limit per window and reports
// the result: Redis's count while Redis answers, this instance's otherwise.
// It never returns Redis's errors, only ErrInvalidLimit.
func (f *Failover) Allow(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if err := validate(limit, window); err != nil {
		return Result{}, err
	}
	if f.up.Load() {
		rctx, cancel := context.WithTimeout(ctx, f.timeout)
		res, err := f.redis.Allow(rctx, key, limit, window)
		cancel()
		if err == nil {
			return res, nil
		}
		if ctx.Err() == nil { // Redis failed, not the caller giving up
			f.markDown(err)
		}
	}
	return f.memory.Allow(ctx, key, limit, window)
}

// Peek reports key's window as Allow would, without counting a request,
// from Redis while it answers and from this instance's counts otherwise.
func (f *Failover) Peek(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if err := validate(limit, window); err != nil {
		return Result{}, err
	}
	if f.up.Load() {
		rctx, cancel := context.WithTimeout(ctx, f.timeout)
		res, err := f.redis.Peek(rctx, key, limit, window)
		cancel()
		if err == nil {
			return res, nil
		}
		if ctx.Err() == nil {
			f.markDown(err)
		}
	}
	return f.memory.Peek(ctx, key, limit, window)
}

// Up reports whether limits are shared through Redis (true) or counted in
// this instance's memory because Redis does not answer (false).
func (f *Failover) Up() bool { return f.up.Load() }

// StateChanges is how many times Redis was found down or back up,
// including a Redis found down at start.
func (f *Failover) StateChanges() uint64 { return f.changes.Load() }

// Close stops the probe and closes Redis and the memory limiter.
func (f *Failover) Close() error {
	f.mu.Lock()
	if !f.closed {
		f.closed = true
		close(f.stop)
	}
	f.mu.Unlock()
	f.wg.Wait()
	f.memory.Close()
	return f.redis.Close()
}

// markDown opens the breaker, once per outage, and starts the probe.
func (f *Failover) markDown(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || !f.up.Load() {
		return
	}
	f.up.Store(false)
	f.changes.Add(1)
	f.logger.Error("redis unreachable: rate limits are counted in this instance's memory until it answers",
		"err", err.Error(), "retry_every", f.interval.String())
	f.wg.Add(1)
	go f.probe()
}

// probe pings Redis every interval until it answers, then closes the
// breaker.
func (f *Failover) probe() {
	defer f.wg.Done()
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		if f.ping(context.Background()) != nil {
			continue
		}
		f.mu.Lock()
		if !f.closed {
			f.up.Store(true)
			f.changes.Add(1)
			f.logger.Info("redis reachable again: rate limits are shared through redis")
		}
		f.mu.Unlock()
		return
	}
}

// ping checks that Redis answers a request within the timeout: a first
// ping may connect, a second must answer in time.
func (f *Failover) ping(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	err := f.redis.Ping(cctx)
	cancel()
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	return f.redis.Ping(pctx)
}
