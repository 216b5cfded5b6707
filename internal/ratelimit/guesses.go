package ratelimit

import (
	"context"
	"math"
	"time"
)

// Peeker is a Limiter that can tell whether a request would be allowed
// now without counting it.
type Peeker interface {
	Limiter
	// Peek reports the window of key as Allow would, without counting a
	// request: Allowed is whether one more would be.
	Peek(ctx context.Context, key string, limit int, window time.Duration) (Result, error)
}

// Guesses is a budget of failed credential checks per client address,
// shared by every way of proving a secret (the password and PIN grants,
// the portals' sign-in): one address that tries the same PIN on many
// accounts, each staying under its own lockout, is stopped here. Only
// failures count; while the budget is spent every attempt from the address
// is refused before its credentials are checked.
type Guesses struct {
	Limiter Peeker
	Limit   int           // failures per Window (DefaultGuesses)
	Window  time.Duration // DefaultGuessWindow
}

// The default budget: 20 failed checks per 15 minutes per address.
const (
	DefaultGuesses     = 20
	DefaultGuessWindow = 15 * time.Minute
)

func (g *Guesses) limits() (int, time.Duration) {
	limit, window := g.Limit, g.Window
	if limit <= 0 {
		limit = DefaultGuesses
	}
	if window <= 0 {
		window = DefaultGuessWindow
	}
	return limit, window
}

// Check reports whether addr may try a credential now and, when not, in
// how many seconds it may again. A limiter error lets the attempt through
// (each account's own lockout still holds).
func (g *Guesses) Check(ctx context.Context, addr string) (ok bool, retryAfter int) {
	if g == nil || g.Limiter == nil {
		return true, 0
	}
	limit, window := g.limits()
	res, err := g.Limiter.Peek(ctx, "guess:"+addr, limit, window)
	if err != nil || res.Allowed {
		return true, 0
	}
	return false, max(int(math.Ceil(time.Until(res.Reset).Seconds())), 1)
}

// Failed counts one failed credential check of addr.
func (g *Guesses) Failed(ctx context.Context, addr string) {
	if g == nil || g.Limiter == nil {
		return
	}
	limit, window := g.limits()
	g.Limiter.Allow(ctx, "guess:"+addr, limit, window) //nolint:errcheck // best effort, as Check
}
