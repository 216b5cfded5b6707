package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// allowScript increments the key's counter, starts its window on the first
// hit, and returns {count, remaining window in ms}.
var allowScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
	ttl = tonumber(ARGV[1])
end
return {n, ttl}
`)

// peekScript returns {count, remaining window in ms} of a key without
// counting (0 and -2 when it has no window).
var peekScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
return {n, redis.call('PTTL', KEYS[1])}
`)

// Redis is a Limiter whose counts live in Redis and are shared by every
// instance using the same prefix.
type Redis struct {
	client redis.UniversalClient
	prefix string
	owned  bool // Close closes client
}

var _ Limiter = (*Redis)(nil)

// NewRedis returns a Limiter storing counts under prefix+key; Close leaves client open.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// OpenRedis returns a Limiter on the Redis of a redis:// URL that closes
// the client on Close. Only a malformed URL is an error: the connection is
// made on first use (NewFailover checks it), so a Redis that is down does
// not stop the service from starting.
//
// Each call waits on Redis no longer than its context allows, with no
// retry: Failover's circuit breaker, not the client, decides what to do
// when Redis does not answer. go-redis's own log lines go to slog at debug
// level; Failover logs each change of Redis's state once.
func OpenRedis(url string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: parse redis url: %w", err)
	}
	r := NewRedis(newClient(opts), "loyalty:rl:")
	r.owned = true
	return r, nil
}

// newClient returns a client that waits no longer than each call's
// context and never retries. A new connection costs one round trip
// (HELLO) before its first command, not three: after a call that missed
// its deadline the connection is dropped, and on a slow Redis the next
// call must connect within its own deadline.
func newClient(opts *redis.Options) *redis.Client {
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1   // -1: none; a retried INCR could count twice
	opts.DialerRetries = 1 // one attempt per dial
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	opts.DialTimeout = time.Second
	quietRedisLogs.Do(func() { redis.SetLogger(debugLogger{}) })
	return redis.NewClient(opts)
}

var quietRedisLogs sync.Once

// debugLogger sends go-redis's log lines to slog.Default at debug level.
type debugLogger struct{}

func (debugLogger) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}

// Ping reports whether Redis answers.
func (r *Redis) Ping(ctx context.Context) error {
	return r.client.Ping(ctx).Err()
}

// Allow counts one request for key against limit per window and reports the result.
func (r *Redis) Allow(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if err := validate(limit, window); err != nil {
		return Result{}, err
	}
	ms := max(window.Milliseconds(), 1)
	vals, err := allowScript.Run(ctx, r.client, []string{r.prefix + key}, ms).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: redis allow: %w", err)
	}
	if len(vals) != 2 {
		return Result{}, fmt.Errorf("ratelimit: redis allow: unexpected reply %v", vals)
	}
	reset := time.Now().Add(time.Duration(vals[1]) * time.Millisecond)
	return result(int(min(vals[0], int64(limit)+1)), limit, reset), nil
}

// Peek reports key's window as Allow would, without counting a request.
func (r *Redis) Peek(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	if err := validate(limit, window); err != nil {
		return Result{}, err
	}
	vals, err := peekScript.Run(ctx, r.client, []string{r.prefix + key}).Int64Slice()
	if err != nil {
		return Result{}, fmt.Errorf("ratelimit: redis peek: %w", err)
	}
	if len(vals) != 2 {
		return Result{}, fmt.Errorf("ratelimit: redis peek: unexpected reply %v", vals)
	}
	ttl := time.Duration(vals[1]) * time.Millisecond
	if vals[1] < 0 {
		vals[0], ttl = 0, window
	}
	return result(int(min(vals[0], int64(limit)))+1, limit, time.Now().Add(ttl)), nil
}

// Close closes the Redis client if it was opened by OpenRedis.
func (r *Redis) Close() error {
	if r.owned {
		return r.client.Close()
	}
	return nil
}
