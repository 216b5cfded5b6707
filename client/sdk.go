package client

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Options tune New; the zero value is fine.
type Options struct {
	// Transport carries the requests (nil: http.DefaultTransport).
	Transport http.RoundTripper
	// Timeout bounds each attempt of a request, reply body included
	// (0 means 30 s).
	Timeout time.Duration
	// Retry is the retry policy of every request.
	Retry Retry
}

// New returns a client of the API at baseURL (the service's root URL)
// for Application Key key, signed in with tokens (nil for the calls that
// need no token, such as creating a user).
//
// Every request carries X-Application-Key and asks for version 1; with
// tokens it carries the access token, refreshed when it expires or is
// refused; every write carries an Idempotency-Key; a request that fails
// on the network, with a 5xx or a 429 is sent again (see Retry).
func New(baseURL, key string, tokens *Tokens, opts ...Options) (*ClientWithResponses, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	return NewClientWithResponses(baseURL, WithHTTPClient(httpClient(key, tokens, o)))
}

// httpClient stacks the transports: each retry is signed afresh (a
// refreshed token is used), and the timeout bounds one attempt.
func httpClient(key string, tokens *Tokens, o Options) *http.Client {
	base := o.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	var rt http.RoundTripper = &headers{base: base, key: key}
	if tokens != nil {
		rt = &bearer{base: rt, tokens: tokens}
	}
	rt = &retrier{base: &attemptTimeout{base: rt, d: timeout}, policy: o.Retry}
	return &http.Client{Transport: rt}
}

// attemptTimeout bounds one attempt, until its reply body is closed.
type attemptTimeout struct {
	base http.RoundTripper
	d    time.Duration
}

func (a *attemptTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), a.d)
	resp, err := a.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
