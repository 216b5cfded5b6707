package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
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

// OpenRedis connects to a redis:// URL and returns a Limiter that closes the client on Close.
func OpenRedis(url string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: parse redis url: %w", err)
	}
	client := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("ratelimit: ping redis: %w", err)
	}
	r := NewRedis(client, "loyalty:rl:")
	r.owned = true
	return r, nil
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

// Close closes the Redis client if it was opened by OpenRedis.
func (r *Redis) Close() error {
	if r.owned {
		return r.client.Close()
	}
	return nil
}
