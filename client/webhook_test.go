package client_test

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/loyalty/loyalty/client"
)

// The signing example of the Standard Webhooks specification and its
// reference libraries' tests.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func deliveryHeader(id string, ts int64, sig string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("webhook-signature", sig)
	return h
}

// verifierAt is a verifier whose clock reads at.
func verifierAt(t *testing.T, at time.Time, secrets ...string) *client.WebhookVerifier {
	t.Helper()
	v, err := client.NewWebhookVerifier(secrets...)
	if err != nil {
		t.Fatal(err)
	}
	v.Now = func() time.Time { return at }
	return v
}

func TestWebhookVerifySpecVector(t *testing.T) {
	sent := time.Unix(vectorTimestamp, 0)
	h := deliveryHeader(vectorID, vectorTimestamp, vectorSignature)
	if err := verifierAt(t, sent.Add(time.Minute), vectorSecret).Verify(h, []byte(vectorBody)); err != nil {
		t.Fatalf("the specification's example does not verify: %v", err)
	}
	// Several signatures, space-separated (the sender's secret is being
	// rotated): one match is enough, whatever its place.
	h.Set("webhook-signature", "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= "+vectorSignature)
	if err := verifierAt(t, sent, vectorSecret).Verify(h, []byte(vectorBody)); err != nil {
		t.Fatalf("a list of signatures with the right one last: %v", err)
	}
}

func TestWebhookVerifyRefusals(t *testing.T) {
	now := time.Now()
	secret := "whsec_" + "c2VjcmV0LW9mLXRoZS1lbmRwb2ludC0zMmJ5dGVzIQ=="
	body := []byte(`{"id":"evt_1","type":"customer.created","data":{"id":"c1"}}`)
	sign := func(secret string, at time.Time, body []byte) http.Header {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := wh.Sign("evt_1", at, body)
		if err != nil {
			t.Fatal(err)
		}
		return deliveryHeader("evt_1", at.Unix(), sig)
	}
	v := verifierAt(t, now, secret)
	if err := v.Verify(sign(secret, now, body), body); err != nil {
		t.Fatalf("a valid delivery is refused: %v", err)
	}
	other := "whsec_" + "YW5vdGhlci1zZWNyZXQtb2YtMzItYnl0ZXMtbG9uZyE="
	tampered := []byte(`{"id":"evt_1","type":"customer.created","data":{"id":"c2"}}`)
	noID := sign(secret, now, body)
	noID.Del("webhook-id")
	badTS := sign(secret, now, body)
	badTS.Set("webhook-timestamp", "yesterday")
	otherID := sign(secret, now, body)
	otherID.Set("webhook-id", "evt_2")
	for _, c := range []struct {
		name   string
		header http.Header
		body   []byte
		want   error
	}{
		{"wrong secret", sign(other, now, body), body, client.ErrWebhookSignature},
		{"tampered body", sign(secret, now, body), tampered, client.ErrWebhookSignature},
		{"another id", otherID, body, client.ErrWebhookSignature},
		{"old timestamp", sign(secret, now.Add(-client.WebhookTolerance-time.Second), body), body, client.ErrWebhookTooOld},
		{"future timestamp", sign(secret, now.Add(client.WebhookTolerance+time.Second), body), body, client.ErrWebhookTooNew},
		{"missing id", noID, body, client.ErrWebhookHeaders},
		{"timestamp not a number", badTS, body, client.ErrWebhookTimestamp},
	} {
		if err := v.Verify(c.header, c.body); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
	// Within the tolerance, an older delivery passes.
	if err := v.Verify(sign(secret, now.Add(-client.WebhookTolerance+time.Second), body), body); err != nil {
		t.Errorf("a delivery 4:59 old is refused: %v", err)
	}
	// During a rotation the receiver knows both secrets.
	if err := verifierAt(t, now, secret, other).Verify(sign(other, now, body), body); err != nil {
		t.Errorf("a delivery signed with the second of two secrets is refused: %v", err)
	}
	if _, err := client.NewWebhookVerifier("whsec_not base64!"); err == nil {
		t.Error("a secret that is not base64 is accepted")
	}
}
