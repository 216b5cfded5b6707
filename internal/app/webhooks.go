package app

import (
	"time"

	"github.com/loyalty/loyalty/internal/webhooks"
)

// WebhookConfig configures webhook deliveries; the zero value is the
// production setting.
type WebhookConfig struct {
	// AllowPrivate lets endpoints be on loopback and private addresses,
	// and on plain http (serve --webhooks-allow-private: development and
	// tests, whose receivers run on 127.0.0.1).
	AllowPrivate bool
	// Backoff replaces webhooks.DefaultBackoff (tests use short waits).
	Backoff []time.Duration
	// Timeout bounds an attempt; default webhooks.DefaultTimeout.
	Timeout time.Duration
	// FailLimit is how long an endpoint may fail before it is disabled;
	// default loyalty.WebhookFailLimit.
	FailLimit time.Duration
	// Poll is how often the fan-out and the worker look for work when
	// nothing wakes them; default 200ms and 1s.
	Poll time.Duration
	// Resolver resolves endpoint hosts when they are saved; nil: the
	// system's (tests simulate a name that resolves elsewhere later).
	Resolver webhooks.Resolver
}

// initWebhooks builds the guard, the fan-out and the delivery worker.
func (a *App) initWebhooks() {
	c := a.Config.Webhooks
	clock := func() time.Time { return a.DB.Clock() }
	a.webhookGuard = webhooks.Guard{AllowPrivate: c.AllowPrivate, Resolver: c.Resolver}
	a.Webhooks = &webhooks.Worker{Store: a.DB, Guard: a.webhookGuard, Logger: a.Config.Logger, Clock: clock,
		Poll: c.Poll, Backoff: c.Backoff, Timeout: c.Timeout, FailLimit: c.FailLimit, Notify: a.Outbox.Wake}
	a.Fanout = &webhooks.Fanout{Store: a.DB, Logger: a.Config.Logger, Clock: clock, Every: c.Poll, Queued: a.Webhooks.Wake}
}
