package client

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Headers of a Standard Webhooks delivery.
const (
	WebhookIDHeader        = standardwebhooks.HeaderWebhookID
	WebhookTimestampHeader = standardwebhooks.HeaderWebhookTimestamp
	WebhookSignatureHeader = standardwebhooks.HeaderWebhookSignature
)

// WebhookTolerance is how far a delivery's timestamp may be from the
// receiver's clock (Standard Webhooks 1.0): an older delivery may be a
// replay.
const WebhookTolerance = 5 * time.Minute

// Reasons a delivery is refused (match them with errors.Is).
var (
	ErrWebhookHeaders   = standardwebhooks.ErrRequiredHeaders     // a header is missing
	ErrWebhookTimestamp = standardwebhooks.ErrInvalidHeaders      // the timestamp is not Unix seconds
	ErrWebhookSignature = standardwebhooks.ErrNoMatchingSignature // no signature matches a secret
	ErrWebhookTooOld    = standardwebhooks.ErrMessageTooOld
	ErrWebhookTooNew    = standardwebhooks.ErrMessageTooNew
)

// WebhookVerifier checks that deliveries come from Loyalty, unchanged and
// recent: the `v1` HMAC-SHA256 signature of `id.timestamp.body` with the
// endpoint's secret, in constant time, by the Standard Webhooks reference
// library, and the timestamp within WebhookTolerance.
type WebhookVerifier struct {
	hooks []*standardwebhooks.Webhook
	// Now is the receiver's clock (nil: time.Now).
	Now func() time.Time
}

// NewWebhookVerifier returns a verifier accepting deliveries signed with
// any of secrets (`whsec_<base64>`, as shown when the endpoint is created
// or its secret rotated): give the old and the new secret while a
// rotation is under way.
func NewWebhookVerifier(secrets ...string) (*WebhookVerifier, error) {
	if len(secrets) == 0 {
		return nil, errors.New("loyalty: a webhook verifier needs a secret")
	}
	v := &WebhookVerifier{}
	for _, s := range secrets {
		h, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			return nil, fmt.Errorf("loyalty: webhook secret: %w", err)
		}
		v.hooks = append(v.hooks, h)
	}
	return v, nil
}

// Verify checks one delivery: its headers and its body exactly as
// received (verify before decoding; re-encoded JSON would not match).
func (v *WebhookVerifier) Verify(header http.Header, body []byte) error {
	id, ts, sig := header.Get(WebhookIDHeader), header.Get(WebhookTimestampHeader), header.Get(WebhookSignatureHeader)
	if id == "" || ts == "" || sig == "" {
		return fmt.Errorf("loyalty: webhook: %w", ErrWebhookHeaders)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("loyalty: webhook: %w", ErrWebhookTimestamp)
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	switch at := time.Unix(sec, 0); {
	case now().Sub(at) > WebhookTolerance:
		return fmt.Errorf("loyalty: webhook: %w", ErrWebhookTooOld)
	case at.Sub(now()) > WebhookTolerance:
		return fmt.Errorf("loyalty: webhook: %w", ErrWebhookTooNew)
	}
	// The timestamp was checked above against v.Now, which the library's
	// own check (on time.Now) cannot be given.
	for _, h := range v.hooks {
		if h.VerifyIgnoringTimestamp(body, header) == nil {
			return nil
		}
	}
	return fmt.Errorf("loyalty: webhook: %w", ErrWebhookSignature)
}

// MaxWebhookBody is the largest delivery body VerifyRequest reads.
const MaxWebhookBody = 1 << 20

// VerifyRequest reads a delivery's body (up to MaxWebhookBody) and
// verifies it; it returns the body for the receiver to decode. Dedupe
// deliveries on the webhook-id header: a delivery may come more than once.
func (v *WebhookVerifier) VerifyRequest(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxWebhookBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxWebhookBody {
		return nil, fmt.Errorf("loyalty: webhook body over %d bytes", MaxWebhookBody)
	}
	return body, v.Verify(r.Header, body)
}
