package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	sdk "github.com/loyalty/loyalty/client"
	"github.com/loyalty/loyalty/internal/apitest"
)

// validating checks every reply that passes through it against the
// OpenAPI document, as env.send does for the hand-built requests.
type validating struct {
	t    *testing.T
	v    *apitest.Validator
	base http.RoundTripper
}

func (vt *validating) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := vt.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	vt.v.Check(vt.t, req, resp, body)
	return resp, nil
}

// sdkTransport is the transport the tests' SDK clients use.
func (e *env) sdkTransport(t *testing.T) http.RoundTripper {
	return &validating{t: t, v: e.v, base: http.DefaultTransport}
}

// sdkOAuth is the SDK's OAuth for the env's password-grant app and
// business.
func (e *env) sdkOAuth(t *testing.T) *sdk.OAuth {
	return &sdk.OAuth{BaseURL: e.url, ApplicationKey: e.biz.Key, ClientID: e.client.ID, ClientSecret: e.client.Secret,
		HTTPClient: &http.Client{Transport: e.sdkTransport(t), Timeout: 30 * time.Second}}
}

// sdk returns an SDK client of the env's server signed in with tokens,
// retrying quickly (tests wait for nothing).
func (e *env) sdk(t *testing.T, base string, tokens *sdk.Tokens) *sdk.ClientWithResponses {
	t.Helper()
	api, err := sdk.New(base, e.biz.Key, tokens, sdk.Options{Transport: e.sdkTransport(t),
		Retry: sdk.Retry{BaseDelay: 5 * time.Millisecond, MaxDelay: 100 * time.Millisecond}})
	if err != nil {
		t.Fatalf("sdk.New: %v", err)
	}
	return api
}

// sdkOwner signs the owner of the env's business in with the password
// grant through the SDK and returns its client.
func (e *env) sdkOwner(t *testing.T) *sdk.ClientWithResponses {
	t.Helper()
	tokens, err := e.sdkOAuth(t).Password(context.Background(), e.biz.Email, e.biz.Password, sdk.ScopeAdmin)
	if err != nil {
		t.Fatalf("password grant: %v", err)
	}
	return e.sdk(t, e.url, tokens)
}
