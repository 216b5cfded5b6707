// Package ratelimit implements fixed-window rate limiting shared by all
// requests, in process (Memory) or across instances through Redis (Redis).
//
// A window is aligned per key: it starts at the key's first request and ends
// window later; the next request after that starts a new window.
package ratelimit

import (
	"context"
	"errors"
	"time"
)

// Result is the outcome of one request against a limit.
type Result struct {
	Allowed   bool
	Limit     int       // requests allowed per window
	Remaining int       // requests left in this window (never negative)
	Reset     time.Time // when the current window ends (requests allowed again)
}

// Limiter counts requests per key in fixed windows.
type Limiter interface {
	// Allow counts one request for key against limit per window and reports the result.
	Allow(ctx context.Context, key string, limit int, window time.Duration) (Result, error)
	Close() error
}

// ErrInvalidLimit is returned by Allow when limit < 1 or window <= 0.
var ErrInvalidLimit = errors.New("ratelimit: limit must be >= 1 and window > 0")

func validate(limit int, window time.Duration) error {
	if limit < 1 || window <= 0 {
		return ErrInvalidLimit
	}
	return nil
}

// result builds a Result from the request count within the current window.
func result(count, limit int, reset time.Time) Result {
	return Result{
		Allowed:   count <= limit,
		Limit:     limit,
		Remaining: max(limit-count, 0),
		Reset:     reset,
	}
}
