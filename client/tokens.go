package client

import (
	"context"
	"errors"
	"io"
	"net/http"

	"golang.org/x/oauth2"
)

// Tokens is one signed-in session: the current token pair, refreshed when
// the access token expires or the server refuses it. It is safe for
// concurrent use; refreshes are serialised, because a refresh token is
// single-use and a second use revokes the whole session.
type Tokens struct {
	oauth *OAuth
	lock  chan struct{} // a mutex that a waiting caller's context can abandon
	tok   *oauth2.Token
}

// ErrNoRefreshToken says that a session has no refresh token left to
// renew an expired access token with: sign in again.
var ErrNoRefreshToken = errors.New("loyalty: the session has no refresh token")

// Token returns a valid token pair, refreshing it first when the access
// token has expired (or expires within ten seconds).
func (t *Tokens) Token(ctx context.Context) (*oauth2.Token, error) {
	if err := t.acquire(ctx); err != nil {
		return nil, err
	}
	defer t.release()
	if t.tok.AccessToken != "" && t.tok.Valid() {
		return cloneToken(t.tok), nil
	}
	return t.refreshLocked(ctx)
}

// Refresh renews the pair whose access token is stale, unless another
// caller has renewed it already; it returns the current pair. Call it
// when the server refused stale (the client's clock and the server's may
// disagree, or the token was revoked).
func (t *Tokens) Refresh(ctx context.Context, stale string) (*oauth2.Token, error) {
	if err := t.acquire(ctx); err != nil {
		return nil, err
	}
	defer t.release()
	if t.tok.AccessToken != stale && t.tok.Valid() {
		return cloneToken(t.tok), nil
	}
	return t.refreshLocked(ctx)
}

func (t *Tokens) refreshLocked(ctx context.Context) (*oauth2.Token, error) {
	if t.tok.RefreshToken == "" {
		return nil, ErrNoRefreshToken
	}
	tok, err := t.oauth.refresh(ctx, t.tok.RefreshToken)
	if err != nil {
		return nil, err
	}
	t.tok = tok
	if t.oauth.OnToken != nil {
		t.oauth.OnToken(cloneToken(tok))
	}
	return cloneToken(tok), nil
}

func (t *Tokens) acquire(ctx context.Context) error {
	select {
	case t.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *Tokens) release() { <-t.lock }

func cloneToken(tok *oauth2.Token) *oauth2.Token {
	c := *tok
	return &c
}

// bearer signs requests with the session's access token. A 401 means the
// token expired early or was revoked: it refreshes once and sends the
// request again.
type bearer struct {
	base   http.RoundTripper
	tokens *Tokens
}

func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := b.tokens.Token(req.Context())
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := b.base.RoundTrip(withBearer(req, tok.AccessToken))
	if err != nil || resp.StatusCode != http.StatusUnauthorized || (req.Body != nil && req.GetBody == nil) {
		return resp, err
	}
	fresh, rerr := b.tokens.Refresh(req.Context(), tok.AccessToken)
	if rerr != nil {
		// The caller sees the 401: the session is over (sign in again).
		return resp, nil
	}
	again := withBearer(req, fresh.AccessToken)
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return b.base.RoundTrip(again)
}

func withBearer(req *http.Request, access string) *http.Request {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+access)
	return r
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// headers adds what every API request carries.
type headers struct {
	base http.RoundTripper
	key  string
}

// mediaType selects version 1 of the API.
const mediaType = "application/vnd.loyalty.api.v1+json"

func (h *headers) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if h.key != "" {
		r.Header.Set("X-Application-Key", h.key)
	}
	if r.Header.Get("Accept") == "" {
		r.Header.Set("Accept", mediaType)
	}
	if r.Header.Get("User-Agent") == "" {
		r.Header.Set("User-Agent", "loyalty-go-sdk")
	}
	return h.base.RoundTrip(r)
}
