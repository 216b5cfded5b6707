package ratelimit

import (
	"context"
	"testing"
	"time"
)

// TestGuesses: on memory and on Redis, an address is refused once it has
// failed Limit times in the window, before counting anything more; another
// address is not; checking counts nothing.
func TestGuesses(t *testing.T) {
	for name, l := range map[string]func(t *testing.T) Peeker{
		"memory": func(t *testing.T) Peeker { m := NewMemory(); t.Cleanup(func() { m.Close() }); return m },
		"redis": func(t *testing.T) Peeker {
			c := newClient(redisOptions(t))
			t.Cleanup(func() { c.Close() })
			return NewRedis(c, sharedPrefix(t))
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			g := &Guesses{Limiter: l(t), Limit: 3, Window: time.Minute}
			for i := range 10 {
				if ok, _ := g.Check(ctx, "10.0.0.1"); !ok {
					t.Fatalf("check %d with no failure refused: checking must count nothing", i)
				}
			}
			for range 3 {
				g.Failed(ctx, "10.0.0.1")
			}
			ok, retry := g.Check(ctx, "10.0.0.1")
			if ok || retry < 1 || retry > 60 {
				t.Fatalf("after 3 failures: ok %v, retry %d; want refused for up to a minute", ok, retry)
			}
			if ok, _ := g.Check(ctx, "10.0.0.2"); !ok {
				t.Fatal("another address refused")
			}
		})
	}
}
