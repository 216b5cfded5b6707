package client

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Retry says how often and how patiently a request is sent again after a
// network error, a 5xx or a 429. The zero value is the default policy.
type Retry struct {
	// Attempts is the number of tries in all, the first included: 0 means
	// 4, 1 turns retrying off.
	Attempts int
	// BaseDelay bounds the wait before the first retry; the bound doubles
	// for each next one (0 means 250 ms). The wait is drawn at random
	// below the bound ("full jitter"), so that clients cut off together do
	// not come back together.
	BaseDelay time.Duration
	// MaxDelay caps every wait (0 means 30 s). A Retry-After asking for
	// longer ends the retries: the caller gets that reply.
	MaxDelay time.Duration
}

func (p Retry) attempts() int {
	if p.Attempts <= 0 {
		return 4
	}
	return p.Attempts
}

func (p Retry) maxDelay() time.Duration {
	if p.MaxDelay <= 0 {
		return 30 * time.Second
	}
	return p.MaxDelay
}

// backoff is the wait before retry number n (1 for the first).
func (p Retry) backoff(n int) time.Duration {
	bound := p.BaseDelay
	if bound <= 0 {
		bound = 250 * time.Millisecond
	}
	for i := 1; i < n && bound < p.maxDelay(); i++ {
		bound *= 2
	}
	bound = min(bound, p.maxDelay())
	return rand.N(bound) + 1
}

// IdempotencyKeyHeader is the header that makes a retried write act once.
const IdempotencyKeyHeader = "Idempotency-Key"

// retrier gives every write an Idempotency-Key and sends a request again,
// with the same key and body, while the reply is a network error, a 5xx
// or a 429 and attempts are left.
//
// The server honours the key on POST /transactions, where a retry gets
// the first reply instead of acting again. PUT and DELETE are idempotent
// by nature. A retried POST or PATCH elsewhere may find its change made
// by the attempt whose reply was lost (a create then answers 409 or 422).
type retrier struct {
	base   http.RoundTripper
	policy Retry
}

func (r *retrier) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	req = req.Clone(ctx)
	if isWrite(req.Method) && req.Header.Get(IdempotencyKeyHeader) == "" {
		req.Header.Set(IdempotencyKeyHeader, uuid.NewString())
	}
	if err := replayable(req); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		try := req
		if attempt > 1 {
			try = req.Clone(ctx)
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				try.Body = body
			}
		}
		resp, err := r.base.RoundTrip(try)
		if attempt >= r.policy.attempts() || !retryable(ctx, resp, err) {
			return resp, err
		}
		wait := r.policy.backoff(attempt)
		if resp != nil {
			if after, ok := retryAfter(resp); ok {
				if after > r.policy.maxDelay() {
					return resp, nil
				}
				wait = after
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// replayable makes sure req's body can be read again for a retry.
func replayable(req *http.Request) error {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return err
	}
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	req.Body, _ = req.GetBody()
	return nil
}

func retryable(ctx context.Context, resp *http.Response, err error) bool {
	if err != nil {
		return ctx.Err() == nil // the caller's deadline or cancellation is final
	}
	return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
}

// retryAfter reads Retry-After: seconds, or an HTTP date.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	v := resp.Header.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
