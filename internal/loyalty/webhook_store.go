package loyalty

import (
	"context"
	"time"
)

// WebhookStore keeps the endpoints and their delivery log. Each method is
// one transaction.
type WebhookStore interface {
	InsertWebhook(ctx context.Context, w *WebhookEndpoint) error
	// Webhook returns an endpoint of the business, or ENotFound.
	Webhook(ctx context.Context, businessID, id string) (WebhookEndpoint, error)
	// Webhooks pages the endpoints of a business, oldest first.
	Webhooks(ctx context.Context, businessID string, q ListQuery) ([]WebhookEndpoint, int, error)
	// ChangeWebhook reads an endpoint of the business, lets change
	// modify it at the transaction's time, and writes it back.
	ChangeWebhook(ctx context.Context, businessID, id string, change func(w *WebhookEndpoint, now time.Time) error) (WebhookEndpoint, error)
	// DeleteWebhook removes an endpoint and its delivery log.
	DeleteWebhook(ctx context.Context, businessID, id string) error
	// WebhookDeliveries pages an endpoint's deliveries, newest event first.
	WebhookDeliveries(ctx context.Context, businessID, endpointID string, q ListQuery) ([]WebhookDelivery, int, error)
	// RequeueDelivery makes a delivery of the business's endpoint due at
	// the transaction's time, whatever its state, unless a worker holds it.
	RequeueDelivery(ctx context.Context, businessID, endpointID, eventID string) (WebhookDelivery, error)
}
