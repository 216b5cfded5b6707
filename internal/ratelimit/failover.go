package ratelimit

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Failover is a Limiter shared by the instances of a service through
// Redis, that holds its limits whether Redis is fast, slow or gone:
//
//   - A slow Redis is not a down Redis. A call waits on Redis for a
//     deadline a loaded host meets: twice the slowest answer Redis gave
//     recently, or its usual latency plus four deviations (see
//     deadline), never less than MinTimeout nor more than MaxTimeout; a
//     call that misses it doubles it for the next ones. (A fixed 50 ms
//     was missed on a loaded host, and the instances fell back to their
//     memories, each allowing a whole limit.) So while Redis answers
//     within the deadline, however loaded the host, every request is
//     decided by Redis's count: the instances together let through
//     exactly the limit.
//   - A call that fails (an error, or no answer within the deadline) is
//     decided by this instance alone (below). The circuit breaker opens
//     after FailCount failures in a row over at least FailWindow, not on
//     one: from then on no request waits on Redis; a probe tries it
//     every Interval and its first answer closes the breaker, so the
//     shared counts apply again.
//   - Every instance marks itself alive in Redis every Heartbeat and
//     learns how many share the limits. Decided alone, a request is
//     allowed only within this instance's share of the limit (limit ÷
//     instances, as last counted before Redis went away) and while the
//     window's count, as far as this instance knows, is within the
//     limit. So a window that begins while Redis is away lets through at
//     most the limit across the instances. For the window in progress
//     when Redis went away, this instance keeps a tally of each window it
//     used while Redis answered (its own requests and the last count
//     Redis gave): the window carries on rather than starting again, and
//     a window Redis had spent stays spent; it holds the limit when the
//     instances had been using it about evenly, and at worst lets through
//     the limit plus the shares of the instances that had not used
//     theirs yet.
//
// An instance that starts while Redis is down has counted no one: it
// takes Instances (the number of instances the operator runs). One that
// cannot reach Redis, or not within the deadline, while the others can
// (a partition) lets through at most its share beyond the limit.
type Failover struct {
	redis    *Redis
	local    *Memory // this instance's tally of each window, and its counts while alone
	deadline *deadline
	cfg      FailoverConfig
	id       string // this instance's mark in Redis

	up        atomic.Bool
	changes   atomic.Uint64
	failures  atomic.Uint64
	instances atomic.Int64 // as Redis last counted them
	failing   atomic.Bool  // fails > 0

	mu        sync.Mutex // orders state changes (and their log lines) with Close
	fails     int        // consecutive failed calls
	firstFail time.Time  // the first of them
	closed    bool
	stop      chan struct{}
	wake      chan struct{} // the breaker changed: the loop changes pace
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

var _ Peeker = (*Failover)(nil)

// FailoverConfig tunes a Failover; zero fields take the defaults.
type FailoverConfig struct {
	// MinTimeout and MaxTimeout bound the deadline of a call to Redis
	// (DefaultMinTimeout, DefaultMaxTimeout); between them it follows
	// Redis's latency.
	MinTimeout, MaxTimeout time.Duration
	// FailCount failed calls in a row (errors, or calls that waited
	// MaxTimeout in vain), the first at least FailWindow before the last,
	// open the breaker (DefaultFailCount, DefaultFailWindow).
	FailCount  int
	FailWindow time.Duration
	// Interval is how often a Redis known to be down is tried again
	// (DefaultFailoverInterval).
	Interval time.Duration
	// Heartbeat is how often an instance marks itself alive in Redis
	// (DefaultHeartbeat); a mark lasts five heartbeats, and at least
	// minMark, so that a loaded host's late heartbeat does not make the
	// others count one instance fewer.
	Heartbeat time.Duration
	// Instances is the least number of instances assumed to share the
	// limits: the count when Redis has never answered (default 1).
	Instances int
	// Group names the instances that count each other: those of one
	// installation (one database), even when installations share a Redis
	// and its prefix; "": all the instances using the prefix.
	Group string
	// Logger gets one line per change of Redis's state (slog.Default).
	Logger *slog.Logger
}

// The defaults of FailoverConfig.
const (
	DefaultMinTimeout       = time.Second
	DefaultMaxTimeout       = 3 * time.Second
	DefaultFailCount        = 3
	DefaultFailWindow       = time.Second
	DefaultFailoverInterval = 500 * time.Millisecond
	DefaultHeartbeat        = time.Second
)

// minMark is the least time an instance's mark lasts in Redis.
const minMark = 5 * time.Second

// connectTimeout bounds a probe's first ping, which may have to connect
// (TCP, TLS, AUTH): only the heartbeat after it must answer in time.
const connectTimeout = 2 * time.Second

func (c FailoverConfig) withDefaults() FailoverConfig {
	set := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	set(&c.MinTimeout, DefaultMinTimeout)
	set(&c.MaxTimeout, DefaultMaxTimeout)
	c.MaxTimeout = max(c.MaxTimeout, c.MinTimeout)
	set(&c.FailWindow, DefaultFailWindow)
	set(&c.Interval, DefaultFailoverInterval)
	set(&c.Heartbeat, DefaultHeartbeat)
	if c.FailCount <= 0 {
		c.FailCount = DefaultFailCount
	}
	c.Instances = max(c.Instances, 1)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// NewFailover returns a Failover on r that owns r (Close closes it). It
// reaches Redis once, waiting at most a couple of seconds: when Redis
// does not answer, the Failover starts open (each request decided by
// this instance alone), says so in the log and keeps trying in the
// background.
func NewFailover(ctx context.Context, r *Redis, cfg FailoverConfig) *Failover {
	cfg = cfg.withDefaults()
	f := &Failover{redis: r, local: NewMemory(), cfg: cfg, id: rand.Text(),
		deadline: newDeadline(cfg.MinTimeout, cfg.MaxTimeout),
		stop:     make(chan struct{}), wake: make(chan struct{}, 1), done: make(chan struct{})}
	f.up.Store(true)
	if err := f.reach(ctx); err != nil {
		f.mu.Lock()
		f.open(err)
		f.mu.Unlock()
	}
	go f.run()
	return f
}

// Allow counts one request for key against limit per window and reports
// the result: Redis's count while Redis answers, this instance's share
// otherwise. It never returns Redis's errors, only ErrInvalidLimit.
func (f *Failover) Allow(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if err := validate(limit, window); err != nil {
		return Result{}, err
	}
	if f.up.Load() {
		res, err := timed(f, ctx, func(ctx context.Context) (Result, error) { return f.redis.Allow(ctx, key, limit, window) })
		if err == nil {
			count := limit + 1
			if res.Allowed {
				count = limit - res.Remaining
			}
			f.local.mirror(key, limit, window, count, res.Reset, true)
			return res, nil
		}
	}
	return f.local.share(key, limit, window, f.Instances()), nil
}

// Peek reports key's window as Allow would, without counting a request:
// from Redis while it answers, from this instance's share otherwise
// (there, with n instances, its own count times n, plus one).
func (f *Failover) Peek(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if err := validate(limit, window); err != nil {
		return Result{}, err
	}
	if f.up.Load() {
		res, err := timed(f, ctx, func(ctx context.Context) (Result, error) { return f.redis.Peek(ctx, key, limit, window) })
		if err == nil {
			count := limit
			if res.Allowed {
				count = limit - res.Remaining - 1
			}
			f.local.mirror(key, limit, window, count, res.Reset, false)
			return res, nil
		}
	}
	return f.local.peekShare(key, limit, window, f.Instances()), nil
}

// Up reports whether limits are shared through Redis (true) or each
// instance enforces its share because Redis does not answer (false).
func (f *Failover) Up() bool { return f.up.Load() }

// StateChanges is how many times Redis was found down or back up,
// including a Redis found down at start.
func (f *Failover) StateChanges() uint64 { return f.changes.Load() }

// Failures is how many calls to Redis (requests' and heartbeats') failed
// or missed their deadline while the breaker was closed; a request's is
// decided by this instance alone.
func (f *Failover) Failures() uint64 { return f.failures.Load() }

// Instances is how many instances share the limits: as Redis last
// counted them, and at least FailoverConfig.Instances.
func (f *Failover) Instances() int {
	return max(int(f.instances.Load()), f.cfg.Instances)
}

// Deadline is how long the next call may wait on Redis.
func (f *Failover) Deadline() time.Duration { return f.deadline.get() }

// Close stops the heartbeat and the probe, removes this instance's mark
// from Redis (so the others count one fewer at once), and closes Redis
// and the memory limiter.
func (f *Failover) Close() error {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		f.closed = true
		close(f.stop)
		f.mu.Unlock()
		<-f.done
		if f.up.Load() {
			ctx, cancel := context.WithTimeout(context.Background(), f.deadline.get())
			f.redis.Leave(ctx, f.cfg.Group, f.id) //nolint:errcheck // the mark ends by itself
			cancel()
		}
		f.local.Close()
		f.closeErr = f.redis.Close()
	})
	return f.closeErr
}

// timed runs one call to Redis within the deadline and records how it
// went: its latency when Redis answered; otherwise (unless the caller gave
// up first) a failure, and for a missed deadline a doubled one for the
// next calls.
func timed[T any](f *Failover, ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	d := f.deadline.get()
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	v, err := call(cctx)
	if err == nil {
		f.deadline.observe(time.Since(start))
		f.succeeded()
		return v, nil
	}
	if ctx.Err() != nil {
		return v, err
	}
	// The socket's deadline (the context's) may fire before the
	// context's own timer on a loaded host.
	var ne net.Error
	if cctx.Err() != nil || errors.As(err, &ne) && ne.Timeout() || time.Since(start) >= d {
		f.deadline.missed(d)
	}
	f.failed(err)
	return v, err
}

// succeeded ends a run of failures.
func (f *Failover) succeeded() {
	if !f.failing.Load() {
		return
	}
	f.mu.Lock()
	f.fails = 0
	f.failing.Store(false)
	f.mu.Unlock()
}

// failed counts a failed call and opens the breaker when the run of
// failures is long enough, in number and in time.
func (f *Failover) failed(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || !f.up.Load() {
		return
	}
	f.failures.Add(1)
	now := time.Now()
	if f.fails == 0 {
		f.firstFail = now
		f.failing.Store(true)
	}
	f.fails++
	if f.fails >= f.cfg.FailCount && now.Sub(f.firstFail) >= f.cfg.FailWindow {
		f.open(err)
	}
}

// open opens the breaker; f.mu is held.
func (f *Failover) open(err error) {
	if f.closed || !f.up.Load() {
		return
	}
	f.up.Store(false)
	f.fails = 0
	f.failing.Store(false)
	f.changes.Add(1)
	f.cfg.Logger.Error("redis unreachable: each instance enforces its share of every limit in its own memory until it answers",
		"err", err.Error(), "instances", f.Instances(), "retry_every", f.cfg.Interval.String())
	f.nudge()
}

// nudge wakes the loop to change its pace.
func (f *Failover) nudge() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}
