// Package webhooks delivers a business's events to its webhook endpoints,
// signed per Standard Webhooks. A Fanout follows each business's event
// feed and queues one delivery per event and matching endpoint; a Worker
// claims due deliveries with a lease (the outbox's pattern), POSTs them
// through a Guard that keeps them off private addresses, and records each
// attempt, retrying with backoff and disabling endpoints that are gone or
// keep failing.
package webhooks

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
)

// Destination is the name of the webhooks' cursor in every business's feed.
const Destination = "webhooks"

// Key names one delivery: an event to an endpoint.
type Key struct{ EndpointID, EventID string }

// Store is what the fan-out and the workers keep their state in.
type Store interface {
	loyalty.CursorStore
	AdvanceCursor(ctx context.Context, destination, businessID, claim string, seq int64, leaseUntil time.Time) (bool, error)
	loyalty.EventReader
	// FeedEnd returns the last committed sequence number of a business's events.
	FeedEnd(ctx context.Context, businessID string) (int64, error)
	// EnabledWebhooks returns a business's enabled endpoints.
	EnabledWebhooks(ctx context.Context, businessID string) ([]loyalty.WebhookEndpoint, error)
	// InsertDeliveries queues deliveries, each (endpoint, event) once ever.
	InsertDeliveries(ctx context.Context, list []loyalty.WebhookDelivery) (int, error)
	// DueDeliveries lists deliveries of enabled endpoints due at now.
	DueDeliveries(ctx context.Context, now time.Time, limit int) ([]Key, error)
	// ClaimDelivery leases a due delivery, counting the attempt; false
	// when another worker took it first.
	ClaimDelivery(ctx context.Context, k Key, claim string, now, leaseUntil time.Time) (loyalty.WebhookDelivery, loyalty.WebhookEndpoint, bool, error)
	// FinishDelivery records an attempt while its claim holds, and returns
	// since when the endpoint has been failing (zero when it is not).
	FinishDelivery(ctx context.Context, a Attempt) (time.Time, error)
	// DisableWebhook disables an endpoint and queues message to its owner;
	// false when it was disabled already.
	DisableWebhook(ctx context.Context, endpointID, reason string,
		message func(ownerEmail, businessName string, w loyalty.WebhookEndpoint) loyalty.Message) (bool, error)
	// PruneDeliveries removes the deliveries queued before a time.
	PruneDeliveries(ctx context.Context, before time.Time) (int, error)
}

// Fanout queues the deliveries of each business's events: it leases the
// business's webhooks cursor (so instances take turns; see
// loyalty.Follower), reads the events after it, writes a delivery for
// each enabled endpoint that takes the event's type and existed when it
// happened, and advances the cursor. A fan-out that dies before
// advancing is repeated by the next claim; the deliveries' key keeps
// each queued once.
type Fanout struct {
	Store  Store
	Logger *slog.Logger
	Clock  func() time.Time
	// Every is how often it looks for new events; default 200ms.
	Every time.Duration
	// Lease is how long a claimed cursor stays this fan-out's; default 30s.
	Lease time.Duration
	// Queued, when set, is called after deliveries were queued.
	Queued func()

	follower *loyalty.Follower
}

// Start runs the fan-out until stop is called, then gives up its
// cursors' leases.
func (f *Fanout) Start(ctx context.Context) (stop func()) {
	return worker.Start(ctx, func(ctx context.Context) {
		worker.Loop(ctx, orDefault(f.Every, 200*time.Millisecond), nil, func(ctx context.Context) {
			if _, err := f.Drain(ctx); err != nil && ctx.Err() == nil {
				logger(f.Logger).ErrorContext(ctx, "webhooks: fan-out failed", "err", err)
			}
		})
		if err := f.followed().Release(context.WithoutCancel(ctx)); err != nil {
			logger(f.Logger).ErrorContext(ctx, "webhooks: releasing the cursors failed", "err", err)
		}
	})
}

// Drain queues the deliveries of every business behind its cursor and
// returns how many it queued.
func (f *Fanout) Drain(ctx context.Context) (int, error) {
	total, err := f.followed().Round(ctx, f.business)
	if total > 0 && f.Queued != nil {
		f.Queued()
	}
	return total, err
}

func (f *Fanout) followed() *loyalty.Follower {
	if f.follower == nil {
		f.follower = &loyalty.Follower{Store: f.Store, Destination: Destination, Clock: f.Clock, Lease: f.Lease}
	}
	return f.follower
}

// business fans out one business's events after seq.
func (f *Fanout) business(ctx context.Context, businessID string, seq int64, until func() time.Time) (int, int64, bool, error) {
	claim := f.followed().Claim()
	// The end is read before the endpoints: an endpoint created after
	// that read came after every event up to the end.
	end, err := f.Store.FeedEnd(ctx, businessID)
	if err != nil {
		return 0, seq, true, err
	}
	endpoints, err := f.Store.EnabledWebhooks(ctx, businessID)
	if err != nil {
		return 0, seq, true, err
	}
	if len(endpoints) == 0 {
		// Nobody listens: skip to the end of the feed rather than read it.
		// At once, not in a while: an endpoint enabled again later takes
		// no event from the time it was off.
		if end <= seq {
			return 0, seq, true, nil
		}
		held, err := f.Store.AdvanceCursor(ctx, Destination, businessID, claim, end, until())
		return 0, end, held, err
	}
	total := 0
	for ctx.Err() == nil {
		page, err := loyalty.ReadEvents(ctx, f.Store, businessID, loyalty.EventQuery{After: seq, Limit: 100})
		if err != nil || len(page) == 0 {
			return total, seq, true, err
		}
		list, err := deliveriesOf(page, endpoints)
		if err != nil {
			return total, seq, true, err
		}
		n, err := f.Store.InsertDeliveries(ctx, list)
		if err != nil {
			return total, seq, true, err
		}
		total += n
		held, err := f.Store.AdvanceCursor(ctx, Destination, businessID, claim, page[len(page)-1].Seq, until())
		if err != nil || !held {
			return total, seq, held, err // lost to another fan-out after the lease ran out: it goes on
		}
		seq = page[len(page)-1].Seq
	}
	return total, seq, true, ctx.Err()
}

// deliveriesOf are the deliveries a page of events makes: one per event
// and endpoint that takes its type and was created before it happened
// (an endpoint receives the events after its creation, not the history).
// Both ids are UUIDv7 in hex, which begin with their creation time in
// milliseconds: comparing them orders the two more finely than the
// changes' times, which are whole seconds.
func deliveriesOf(page []loyalty.Event, endpoints []loyalty.WebhookEndpoint) ([]loyalty.WebhookDelivery, error) {
	var out []loyalty.WebhookDelivery
	for _, e := range page {
		var body []byte
		for _, w := range endpoints {
			if !w.Wants(e.Type) || e.ID < w.ID {
				continue
			}
			if body == nil {
				b, err := json.Marshal(loyalty.NewEventJSON(e))
				if err != nil {
					return nil, err
				}
				body = b
			}
			out = append(out, loyalty.WebhookDelivery{EndpointID: w.ID, EventID: e.ID, BusinessID: e.BusinessID,
				Seq: e.Seq, EventType: e.Type, Body: body})
		}
	}
	return out, nil
}

func now(clock func() time.Time) time.Time {
	if clock != nil {
		return clock().UTC()
	}
	return time.Now().UTC()
}

func logger(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return slog.Default()
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
