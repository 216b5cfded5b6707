package ratelimit

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// redisClient returns a client for LOYALTY_TEST_REDIS_URL (default
// redis://127.0.0.1:6379/0), skipping the test only if it is "off".
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	url := testenv.RedisURL(t)
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis %s: %v (set LOYALTY_TEST_REDIS_URL=off to skip)", url, err)
	}
	return c
}

// testPrefix returns a random key prefix whose keys are deleted when the test ends.
func testPrefix(t *testing.T, c *redis.Client) string {
	t.Helper()
	prefix := "loyalty:test:rl:" + rand.Text() + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("cleanup %s: %v", prefix, err)
		}
	})
	return prefix
}

func TestRedis(t *testing.T) {
	runBehaviour(t, func(t *testing.T) Limiter {
		c := redisClient(t)
		r := NewRedis(c, testPrefix(t, c))
		t.Cleanup(func() { r.Close() })
		return r
	})
}

func TestRedisSharedBetweenInstances(t *testing.T) {
	c1, c2 := redisClient(t), redisClient(t)
	prefix := testPrefix(t, c1)
	a, b := NewRedis(c1, prefix), NewRedis(c2, prefix)
	ctx := context.Background()
	for i := range 3 {
		l := []*Redis{a, b}[i%2]
		if r, err := l.Allow(ctx, "k", 3, time.Minute); err != nil || !r.Allowed || r.Remaining != 2-i {
			t.Fatalf("request %d: got %+v, %v; want allowed, Remaining %d", i+1, r, err, 2-i)
		}
	}
	for _, l := range []*Redis{a, b} {
		if r, err := l.Allow(ctx, "k", 3, time.Minute); err != nil || r.Allowed {
			t.Fatalf("over shared limit: got %+v, %v; want denied", r, err)
		}
	}
	if n, err := c1.Exists(ctx, prefix+"k").Result(); err != nil || n != 1 {
		t.Fatalf("key %sk exists = %d, %v; want 1", prefix, n, err)
	}
}

func TestOpenRedis(t *testing.T) {
	redisClient(t) // skip or fail like the other Redis tests
	r, err := OpenRedis(testenv.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.prefix != "loyalty:rl:" {
		t.Errorf("prefix = %q, want loyalty:rl:", r.prefix)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Allow(context.Background(), "closed", 1, time.Second); err == nil {
		t.Error("Allow after Close succeeded, want error from closed client")
	}
	if _, err := OpenRedis("not-a-url"); err == nil {
		t.Error("OpenRedis(not-a-url) succeeded, want error")
	}
}
