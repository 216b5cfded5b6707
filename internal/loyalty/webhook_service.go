package loyalty

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// WebhookInput is the body of a webhook endpoint create or update; every
// field records whether it was sent.
type WebhookInput struct {
	URL         Opt[string]   `json:"url"`
	EventTypes  Opt[[]string] `json:"event_types"`
	Enabled     Opt[bool]     `json:"enabled"`
	Description Opt[string]   `json:"description"`
}

// RotateInput is the body of a secret rotation: how long the previous
// secret keeps signing, in seconds (DefaultSecretOverlap when absent).
type RotateInput struct {
	OverlapSeconds Opt[int64] `json:"overlap_seconds"`
}

// URLGuard decides which URLs deliveries may go to (the SSRF guard): its
// error's message says why a URL is refused.
type URLGuard interface {
	CheckURL(ctx context.Context, u *url.URL) error
}

// WebhookListSpec says how GET /webhooks is paged.
var WebhookListSpec = ListSpec{DefaultPerPage: 100}

// DeliveryListSpec says how GET /webhooks/{id}/deliveries is paged and
// filtered.
var DeliveryListSpec = ListSpec{Fields: map[string]FilterKind{"state": KindString}, DefaultPerPage: 100}

// maxWebhookURL bounds an endpoint's URL.
const maxWebhookURL = 2000

// WebhookService holds the rules for a business's webhook endpoints.
type WebhookService struct {
	Store Store
	// Guard refuses URLs deliveries must not go to; nil checks only
	// their form (tests of the rules).
	Guard URLGuard
}

// Create adds an endpoint, enabled unless the input says otherwise, with
// a fresh secret (shown once, in the reply).
func (s *WebhookService) Create(ctx context.Context, b Business, in WebhookInput) (WebhookEndpoint, error) {
	w := WebhookEndpoint{ID: NewID(), BusinessID: b.ID, Enabled: true, EventTypes: []string{}, Secret: NewWebhookSecret()}
	v := Validation{}
	if !in.URL.Set {
		v.Add("url", "The url field is required.")
	}
	if err := s.apply(ctx, v, in, &w); err != nil {
		return WebhookEndpoint{}, err
	}
	now := s.Store.Now()
	w.CreatedAt, w.UpdatedAt = now, now
	return w, s.Store.InsertWebhook(ctx, &w)
}

// Update changes the fields sent. Enabling an endpoint the service
// disabled forgets why and how long it had been failing.
func (s *WebhookService) Update(ctx context.Context, b Business, id string, in WebhookInput) (WebhookEndpoint, error) {
	if !ValidID(id) {
		return WebhookEndpoint{}, Errorf(EBadRequest, "The webhook id must be 32 hexadecimal characters.")
	}
	var draft WebhookEndpoint
	if err := s.apply(ctx, Validation{}, in, &draft); err != nil {
		return WebhookEndpoint{}, err
	}
	return s.Store.ChangeWebhook(ctx, b.ID, id, func(w *WebhookEndpoint, now time.Time) error {
		if in.URL.Set {
			w.URL = draft.URL
		}
		if in.EventTypes.Set {
			w.EventTypes = draft.EventTypes
		}
		if in.Description.Set {
			w.Description = draft.Description
		}
		if in.Enabled.Set {
			if draft.Enabled && !w.Enabled {
				w.DisabledReason, w.FailingSince = "", time.Time{}
			}
			w.Enabled = draft.Enabled
		}
		w.UpdatedAt = now
		return nil
	})
}

// apply validates the fields sent and writes them into w.
func (s *WebhookService) apply(ctx context.Context, v Validation, in WebhookInput, w *WebhookEndpoint) error {
	if raw, ok := in.URL.Value(); ok {
		u, err := url.Parse(raw)
		switch {
		case len(raw) > maxWebhookURL:
			v.Add("url", "The url may not be longer than 2000 characters.")
		case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
			v.Add("url", "The url must be an absolute https URL.")
		case u.User != nil:
			v.Add("url", "The url may not hold a user name or password; authenticate deliveries by their signature.")
		case u.Fragment != "":
			v.Add("url", "The url may not have a fragment (#...).")
		case s.Guard != nil:
			if err := s.Guard.CheckURL(ctx, u); err != nil {
				v.Add("url", err.Error())
			}
		}
		w.URL = raw
	} else if in.URL.Null {
		v.Add("url", "The url may not be null.")
	}
	if types, ok := in.EventTypes.Value(); ok {
		w.EventTypes = []string{}
		for _, typ := range types {
			if !slices.Contains(EventTypes, typ) {
				v.Add("event_types", "Unknown event type \""+typ+"\"; the types are "+strings.Join(EventTypes, ", ")+".")
				continue
			}
			if !slices.Contains(w.EventTypes, typ) {
				w.EventTypes = append(w.EventTypes, typ)
			}
		}
	} else if in.EventTypes.Null {
		w.EventTypes = []string{} // null, like [], means every type
	}
	if d, ok := in.Description.Value(); ok {
		if len([]rune(d)) > 500 {
			v.Add("description", "The description may not be longer than 500 characters.")
		}
		w.Description = d
	} else if in.Description.Null {
		w.Description = ""
	}
	setBool(v, "enabled", in.Enabled, &w.Enabled)
	return v.Err()
}

// Get returns one endpoint of the business.
func (s *WebhookService) Get(ctx context.Context, b Business, id string) (WebhookEndpoint, error) {
	if !ValidID(id) {
		return WebhookEndpoint{}, Errorf(EBadRequest, "The webhook id must be 32 hexadecimal characters.")
	}
	return s.Store.Webhook(ctx, b.ID, id)
}

// List pages the endpoints of the business.
func (s *WebhookService) List(ctx context.Context, b Business, q ListQuery) ([]WebhookEndpoint, int, error) {
	return s.Store.Webhooks(ctx, b.ID, q)
}

// Delete removes an endpoint: its pending deliveries are dropped with it.
func (s *WebhookService) Delete(ctx context.Context, b Business, id string) error {
	if !ValidID(id) {
		return Errorf(EBadRequest, "The webhook id must be 32 hexadecimal characters.")
	}
	return s.Store.DeleteWebhook(ctx, b.ID, id)
}

// RotateSecret gives the endpoint a new secret. The one it replaces keeps
// signing beside it for the overlap, so a receiver can switch secrets
// without refusing a delivery; a second rotation within the overlap ends
// the oldest secret at once.
func (s *WebhookService) RotateSecret(ctx context.Context, b Business, id string, in RotateInput) (WebhookEndpoint, error) {
	if !ValidID(id) {
		return WebhookEndpoint{}, Errorf(EBadRequest, "The webhook id must be 32 hexadecimal characters.")
	}
	overlap := DefaultSecretOverlap
	if n, ok := in.OverlapSeconds.Value(); ok {
		if n < 0 || time.Duration(n)*time.Second > MaxSecretOverlap {
			return WebhookEndpoint{}, Invalid("overlap_seconds", "The overlap seconds must be between 0 and 604800 (7 days).")
		}
		overlap = time.Duration(n) * time.Second
	} else if in.OverlapSeconds.Null {
		return WebhookEndpoint{}, Invalid("overlap_seconds", "The overlap seconds must be a number of seconds.")
	}
	secret := NewWebhookSecret()
	return s.Store.ChangeWebhook(ctx, b.ID, id, func(w *WebhookEndpoint, now time.Time) error {
		w.PreviousSecret, w.PreviousSecretUntil = w.Secret, now.Add(overlap)
		if overlap == 0 {
			w.PreviousSecret, w.PreviousSecretUntil = "", time.Time{}
		}
		w.Secret, w.UpdatedAt = secret, now
		return nil
	})
}

// Deliveries pages the delivery log of one of the business's endpoints.
func (s *WebhookService) Deliveries(ctx context.Context, b Business, id string, q ListQuery) ([]WebhookDelivery, int, error) {
	if _, err := s.Get(ctx, b, id); err != nil {
		return nil, 0, err
	}
	for _, f := range q.Filters {
		for _, v := range f.Values {
			if st, _ := v.(string); !slices.Contains([]string{DeliveryPending, DeliverySending, DeliveryDelivered, DeliveryFailed}, st) {
				return nil, 0, Errorf(EBadRequest, "The state filter takes pending, sending, delivered or failed.")
			}
		}
	}
	return s.Store.WebhookDeliveries(ctx, b.ID, id, q)
}

// Retry makes a delivery due now, whatever became of it: a failed or
// even a delivered event is sent again (receivers dedupe on webhook-id).
// It continues the delivery's backoff, so one that had used its attempts
// gets one more.
func (s *WebhookService) Retry(ctx context.Context, b Business, id, eventID string) (WebhookDelivery, error) {
	w, err := s.Get(ctx, b, id)
	if err != nil {
		return WebhookDelivery{}, err
	}
	if !ValidID(eventID) {
		return WebhookDelivery{}, Errorf(EBadRequest, "The event id must be 32 hexadecimal characters.")
	}
	if !w.Enabled {
		return WebhookDelivery{}, Errorf(EConflict, "The endpoint is disabled: enable it (PUT /webhooks/{id} with enabled true), then retry.")
	}
	return s.Store.RequeueDelivery(ctx, b.ID, id, eventID)
}
