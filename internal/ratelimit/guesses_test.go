package ratelimit

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// limiters are the two Peekers every guess test runs on.
func limiters() map[string]func(t *testing.T) Peeker {
	return map[string]func(t *testing.T) Peeker{
		"memory": func(t *testing.T) Peeker { m := NewMemory(); t.Cleanup(func() { m.Close() }); return m },
		"redis": func(t *testing.T) Peeker {
			c := newClient(redisOptions(t))
			t.Cleanup(func() { c.Close() })
			return NewRedis(c, sharedPrefix(t))
		},
	}
}

// TestGuesses: on memory and on Redis, a source that sprays new accounts
// is refused once it has failed Limit times in the window, before its
// credentials are checked, and checking counts nothing; another address is
// not refused; an account the source signed in to before is still open to
// it; one account failed PairLimit times is closed to the source while
// others stay open; a trusted network has no per-source budget; a
// confidential client has a budget of its own.
func TestGuesses(t *testing.T) {
	for name, l := range limiters() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			g := &Guesses{Limiter: l(t), Limit: 3, PairLimit: 2, Window: time.Minute,
				Trusted: []netip.Prefix{netip.MustParsePrefix("192.168.0.0/16")}}
			at := func(addr, account string) Attempt { return Attempt{Addr: addr, Account: account} }
			g.Succeeded(ctx, at("10.0.0.1", "Known@Example.com"))
			// The success earned one failure: 4 on new accounts now.
			for i := range 10 {
				if ok, _ := g.Check(ctx, at("10.0.0.1", fmt.Sprint("new", i))); !ok {
					t.Fatalf("check %d with no failure refused: checking must count nothing", i)
				}
			}
			for i := range 4 {
				g.Failed(ctx, at("10.0.0.1", fmt.Sprint("sprayed", i)))
			}
			ok, retry := g.Check(ctx, at("10.0.0.1", "another"))
			if ok || retry < 1 || retry > 60 {
				t.Fatalf("after 4 failures on new accounts: ok %v, retry %d; want refused for up to a minute", ok, retry)
			}
			if ok, _ := g.Check(ctx, at("10.0.0.1", " known@example.com")); !ok {
				t.Error("an account the address signed in to before was refused for the address's failures elsewhere")
			}
			if ok, _ := g.Check(ctx, at("10.0.0.2", "another")); !ok {
				t.Error("another address refused")
			}
			g.Failed(ctx, at("10.0.0.1", "known@example.com"))
			g.Failed(ctx, at("10.0.0.1", "known@example.com"))
			if ok, _ := g.Check(ctx, at("10.0.0.1", "known@example.com")); ok {
				t.Error("a source failing twice on one account (the pair limit) still allowed on it")
			}
			for i := range 10 {
				g.Failed(ctx, at("192.168.1.9", fmt.Sprint("t", i%5)))
			}
			if ok, _ := g.Check(ctx, at("192.168.1.9", "fresh")); !ok {
				t.Error("a trusted network refused for failures on other accounts")
			}
			if ok, _ := g.Check(ctx, at("192.168.1.9", "t1")); ok {
				t.Error("a trusted network escaped the pair limit")
			}
			if ok, _ := g.Check(ctx, Attempt{Addr: "10.0.0.1", Client: "backend", Account: "another"}); !ok {
				t.Error("a confidential client refused for the address's spraying")
			}
		})
	}
}

// TestGuessesThroughOneAddress: 1,000 members signing in through one
// address (an app's backend), one in twenty mistyping their PIN once, all
// get in; a sprayer trying one PIN on 1,000 accounts from one address
// gets Limit guesses.
func TestGuessesThroughOneAddress(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	defer m.Close()
	g := &Guesses{Limiter: m}
	refused := 0
	for i := range 1000 {
		a := Attempt{Addr: "203.0.113.5", Account: fmt.Sprintf("member%d@example.com", i)}
		if i%20 == 7 {
			if ok, _ := g.Check(ctx, a); !ok {
				refused++
				continue
			}
			g.Failed(ctx, a)
		}
		if ok, _ := g.Check(ctx, a); !ok {
			refused++
			continue
		}
		g.Succeeded(ctx, a)
	}
	if refused != 0 {
		t.Errorf("%d of 1,000 members refused through one address, want none", refused)
	}
	guesses := 0
	for i := range 1000 {
		a := Attempt{Addr: "198.51.100.66", Account: fmt.Sprintf("victim%d@example.com", i)}
		if ok, _ := g.Check(ctx, a); ok {
			guesses++
			g.Failed(ctx, a)
		}
	}
	if guesses != DefaultGuesses {
		t.Errorf("a sprayer over 1,000 accounts got %d guesses, want %d", guesses, DefaultGuesses)
	}
}
