package loyalty

import (
	"crypto/rand"
	"encoding/base64"
	"slices"
	"time"
)

// WebhookEndpoint is where a business wants its events POSTed, signed per
// Standard Webhooks with Secret (and PreviousSecret until
// PreviousSecretUntil, while a rotation is under way).
type WebhookEndpoint struct {
	ID                  string
	BusinessID          string
	URL                 string
	Description         string
	EventTypes          []string // empty: every type
	Enabled             bool
	DisabledReason      string // why the service disabled it (WebhookGone, WebhookFailing); empty otherwise
	Secret              string // whsec_<base64>
	PreviousSecret      string
	PreviousSecretUntil time.Time
	FailingSince        time.Time // the first failed attempt since the last success; zero when none
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// Why the service disabled an endpoint.
const (
	WebhookGone    = "gone"    // the receiver answered 410 Gone
	WebhookFailing = "failing" // its deliveries failed for WebhookFailLimit
)

// WebhookFailLimit is how long an endpoint's deliveries may keep failing
// before the service disables it and tells the owner.
const WebhookFailLimit = 5 * 24 * time.Hour

// DefaultSecretOverlap is how long the previous secret keeps signing
// after a rotation when the request names no overlap.
const DefaultSecretOverlap = 24 * time.Hour

// MaxSecretOverlap bounds the overlap a rotation may ask for.
const MaxSecretOverlap = 7 * 24 * time.Hour

// Wants reports whether the endpoint takes events of type typ.
func (w WebhookEndpoint) Wants(typ string) bool {
	return len(w.EventTypes) == 0 || slices.Contains(w.EventTypes, typ)
}

// Secrets are the secrets deliveries are signed with at now: the current
// one, and the previous one while its overlap lasts.
func (w WebhookEndpoint) Secrets(now time.Time) []string {
	if w.PreviousSecret != "" && now.Before(w.PreviousSecretUntil) {
		return []string{w.Secret, w.PreviousSecret}
	}
	return []string{w.Secret}
}

// NewWebhookSecret returns a fresh signing secret: whsec_ and the base64
// of 32 random bytes, the form Standard Webhooks libraries take.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// Delivery states.
const (
	DeliveryPending   = "pending"   // waiting for its next attempt
	DeliverySending   = "sending"   // a worker holds it
	DeliveryDelivered = "delivered" // the receiver answered 2xx
	DeliveryFailed    = "failed"    // no more attempts (retry re-queues it)
)

// WebhookDelivery is one event's delivery to one endpoint, with its last
// attempt.
type WebhookDelivery struct {
	EndpointID    string
	EventID       string
	BusinessID    string
	Seq           int64
	EventType     string
	Body          []byte // the event as GET /events shows it
	State         string
	Attempts      int
	LastStatus    int // the receiver's HTTP status; 0 when it gave none
	LastLatency   time.Duration
	LastResponse  string // the start of the receiver's body, at most MaxResponseExcerpt bytes
	LastError     string // why the last attempt failed without a status (timeout, refused address)
	LastAttemptAt time.Time
	NextAttemptAt time.Time // zero when no attempt is planned
	CreatedAt     time.Time
}

// MaxResponseExcerpt bounds the part of a receiver's reply the log keeps.
const MaxResponseExcerpt = 1024

// WebhookDisabledMessage is the e-mail telling a business's owner that the
// service disabled one of its endpoints.
func WebhookDisabledMessage(ownerEmail, businessName string, w WebhookEndpoint, reason string) Message {
	why := "its deliveries failed for 5 days"
	if reason == WebhookGone {
		why = "it answered 410 Gone, which asks for no more deliveries"
	}
	return Message{Channel: ChannelEmail, To: ownerEmail, Subject: businessName + ": a webhook endpoint was disabled",
		Body: "Loyalty stopped sending events to your webhook endpoint\n\n  " + w.URL + "\n\nbecause " + why + ".\n\n" +
			"Its delivery log (GET /webhooks/" + w.ID + "/deliveries) shows the last replies. Once the receiver works again, " +
			"enable the endpoint (PUT /webhooks/" + w.ID + " with enabled: true) and retry the deliveries it missed " +
			"(POST /webhooks/" + w.ID + "/deliveries/{event_id}/retry).\n"}
}
