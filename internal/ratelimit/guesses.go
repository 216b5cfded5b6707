package ratelimit

import (
	"context"
	"math"
	"net/netip"
	"strings"
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

// Guesses budgets failed credential checks, shared by every way of
// proving a secret (the password and PIN grants, the portals' and the
// wallet's sign-in), so that it protects accounts without locking out
// the addresses their people come from:
//
//   - per (source, account): a source that keeps failing on one account
//     is stopped on that account (PairLimit a window), beside the
//     account's own lockout;
//   - per source, for accounts it has not signed in to correctly before:
//     Limit failures a window, plus one for each correct sign-in it made
//     in the window. An app's backend that forwards thousands of members'
//     sign-ins (a few mistyped) earns far more than it spends; an address
//     that sprays one PIN over many accounts has nothing but Limit;
//   - an account the source signed in to correctly within Known is never
//     refused for the source's failures on other accounts.
//
// The source is the client address, or, for a confidential client that
// proved its secret, the client itself (its own budget, wherever its
// requests come from). Addresses in Trusted (the business's own network,
// say) have no per-source budget; the per-account limits still hold.
type Guesses struct {
	Limiter   Peeker
	Limit     int           // failures per Window on accounts new to the source (DefaultGuesses)
	PairLimit int           // failures per Window of one source on one account (DefaultPairGuesses)
	Window    time.Duration // DefaultGuessWindow
	Known     time.Duration // how long a correct sign-in vouches for its account (DefaultKnown)
	Trusted   []netip.Prefix
}

// The default budgets.
const (
	DefaultGuesses      = 20
	DefaultPairGuesses  = 10
	DefaultGuessWindow  = 15 * time.Minute
	DefaultKnown        = 30 * 24 * time.Hour
	successesCountLimit = 1 << 30 // a counter, never a limit
)

// Attempt is one credential check: where it comes from and for which
// account.
type Attempt struct {
	Addr    string // the client's address
	Client  string // a confidential client that proved its secret, else ""
	Account string // the account tried: an e-mail, phone or username as typed
}

// source is the budget the attempt draws on.
func (a Attempt) source() string {
	if a.Client != "" {
		return "c:" + a.Client
	}
	return "a:" + a.Addr
}

// account is the attempt's account as the keys name it.
func (a Attempt) account() string {
	return strings.ToLower(strings.Join(strings.Fields(a.Account), ""))
}

func (g *Guesses) budgets() (limit, pair int, window, known time.Duration) {
	limit, pair, window, known = g.Limit, g.PairLimit, g.Window, g.Known
	if limit <= 0 {
		limit = DefaultGuesses
	}
	if pair <= 0 {
		pair = DefaultPairGuesses
	}
	if window <= 0 {
		window = DefaultGuessWindow
	}
	if known <= 0 {
		known = DefaultKnown
	}
	return limit, pair, window, known
}

// trusted reports whether the attempt's address is in a trusted network
// (a confidential client's budget is its own either way).
func (g *Guesses) trusted(a Attempt) bool {
	if a.Client != "" {
		return false
	}
	ip, err := netip.ParseAddr(a.Addr)
	if err != nil {
		return false
	}
	for _, p := range g.Trusted {
		if p.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}

// Check reports whether the attempt may check its credential now and,
// when not, in how many seconds it may again. Checking counts nothing. A
// limiter error lets the attempt through (each account's own lockout
// still holds).
func (g *Guesses) Check(ctx context.Context, a Attempt) (ok bool, retryAfter int) {
	if g == nil || g.Limiter == nil {
		return true, 0
	}
	limit, pair, window, known := g.budgets()
	src, acct := a.source(), a.account()
	if acct != "" {
		res, err := g.Limiter.Peek(ctx, "guess:p:"+src+":"+acct, pair, window)
		if err == nil && !res.Allowed {
			return false, retryIn(res)
		}
		if g.knows(ctx, src, acct, known) {
			return true, 0
		}
	}
	if g.trusted(a) {
		return true, 0
	}
	earned := g.successes(ctx, src, window)
	res, err := g.Limiter.Peek(ctx, "guess:s:"+src, limit+earned, window)
	if err != nil || res.Allowed {
		return true, 0
	}
	return false, retryIn(res)
}

// Failed counts one failed credential check.
func (g *Guesses) Failed(ctx context.Context, a Attempt) {
	if g == nil || g.Limiter == nil {
		return
	}
	limit, pair, window, known := g.budgets()
	src, acct := a.source(), a.account()
	if acct != "" {
		g.Limiter.Allow(ctx, "guess:p:"+src+":"+acct, pair, window) //nolint:errcheck // best effort, as Check
		if g.knows(ctx, src, acct, known) {
			return // its own pair budget holds it
		}
	}
	if !g.trusted(a) {
		g.Limiter.Allow(ctx, "guess:s:"+src, limit+g.successes(ctx, src, window), window) //nolint:errcheck
	}
}

// Succeeded counts one correct sign-in: it earns the source one more
// failure on new accounts this window, and vouches for the account from
// this source for Known.
func (g *Guesses) Succeeded(ctx context.Context, a Attempt) {
	if g == nil || g.Limiter == nil {
		return
	}
	_, _, window, known := g.budgets()
	src, acct := a.source(), a.account()
	g.Limiter.Allow(ctx, "guess:ok:"+src, successesCountLimit, window) //nolint:errcheck // best effort, as Check
	if acct != "" && !g.knows(ctx, src, acct, known) {
		g.Limiter.Allow(ctx, "guess:known:"+src+":"+acct, 1, known) //nolint:errcheck
	}
}

// knows reports whether src signed in to acct correctly within known.
func (g *Guesses) knows(ctx context.Context, src, acct string, known time.Duration) bool {
	res, err := g.Limiter.Peek(ctx, "guess:known:"+src+":"+acct, 1, known)
	return err == nil && !res.Allowed
}

// successes counts the source's correct sign-ins this window.
func (g *Guesses) successes(ctx context.Context, src string, window time.Duration) int {
	res, err := g.Limiter.Peek(ctx, "guess:ok:"+src, successesCountLimit, window)
	if err != nil {
		return 0
	}
	// Peek reports the window as one more request would leave it.
	return successesCountLimit - res.Remaining - 1
}

// retryIn is the seconds until a refused window ends.
func retryIn(res Result) int {
	return max(int(math.Ceil(time.Until(res.Reset).Seconds())), 1)
}
