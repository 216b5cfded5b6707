// Package app wires Loyalty together: configuration, storage, the
// authorization server, the domain services, the HTTP API and the pages. Both
// the binary and the end-to-end tests start the service through it.
package app

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/events"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/outbox"
	"github.com/loyalty/loyalty/internal/ratelimit"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/web"
	"github.com/loyalty/loyalty/internal/webhooks"
)

// ErrNoDatabase is Open's error, with Config.MustExist, for a database
// that was never created.
var ErrNoDatabase = errors.New("no Loyalty database")

// App is an opened service.
type App struct {
	Config  Config
	DB      *sqlstore.DB
	OAuth   *oauth.Server
	Admin   *loyalty.AdminService // support's operations on businesses and coalitions
	Hasher  *oauth.Hasher
	Limiter ratelimit.Limiter
	// Guesses budgets failed credential checks per client IP, for the token
	// endpoint and the portals alike.
	Guesses *ratelimit.Guesses
	// Services are the domain services, built once and shared by the API
	// and the pages.
	Services loyalty.Services
	API      *httpapi.Server
	Web      *web.Server // the portals and the consent pages
	// Outbox delivers queued e-mails and text messages; it starts with
	// Handler or Serve and stops with Close.
	Outbox *outbox.Worker
	// Sequencer numbers committed events for the deliveries and prunes
	// old ones; it runs with the outbox.
	Sequencer *events.Sequencer
	// Rollup folds the events into the dashboard's aggregates; it runs
	// with the sequencer.
	Rollup *events.Rollup
	// Tiers announces the tier levels that transactions move.
	Tiers *events.TierKeeper
	// NATS publishes the events to JetStream when Config.EventsNATS is set.
	NATS       *events.NATS
	closeNATS  func()
	stopEvents []func()
	// Imports runs started CSV imports; it starts and stops with Outbox.
	Imports    *loyalty.ImportWorker
	stopImport func()
	handler    http.Handler
	outboxOnce sync.Once
	stopOutbox func()

	// Fanout queues webhook deliveries of new events, and Webhooks
	// delivers them; both run with the outbox.
	Fanout       *webhooks.Fanout
	Webhooks     *webhooks.Worker
	webhookGuard webhooks.Guard
	// Points activates and expires lots of points when due; it starts and
	// stops with the outbox.
	Points     *loyalty.PointsScheduler
	stopPoints func()
	// Campaigns sends the campaigns that are due; UnsubscribeKey signs
	// their unsubscribe links.
	Campaigns      *loyalty.CampaignRunner
	UnsubscribeKey []byte
	stopCampaigns  func()
	// Automations runs the businesses' automations.
	Automations     *loyalty.AutomationRunner
	stopAutomations func()
}

// Open connects to the database, applies migrations and builds the service.
func Open(ctx context.Context, cfg Config) (*App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	dsn, err := sqlstore.ParseDSN(cfg.DSN())
	if err != nil {
		return nil, err
	}
	if cfg.MustExist {
		if ok, err := dsn.Exists(); err != nil || !ok {
			return nil, errors.Join(fmt.Errorf("%w at %s", ErrNoDatabase, dsn), err)
		}
	}
	db, err := sqlstore.OpenWith(ctx, cfg.DSN(), sqlstore.Options{ListenDSN: cfg.DBListen})
	if err != nil {
		return nil, err
	}
	if cfg.MustExist {
		if ok, err := db.Initialized(ctx); err != nil || !ok {
			db.Close()
			return nil, errors.Join(fmt.Errorf("%w at %s", ErrNoDatabase, dsn), err)
		}
	}
	switch {
	case cfg.TokenCache == 0:
		db.TokenCacheTTL = DefaultTokenCache
	case cfg.TokenCache > 0:
		db.TokenCacheTTL = cfg.TokenCache
	}
	a := &App{Config: cfg, DB: db}
	if err := a.init(ctx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *App) init(ctx context.Context) error {
	if _, err := a.DB.Migrate(ctx); err != nil {
		return err
	}
	key, err := a.DB.Secret(ctx, "token_hmac")
	if err != nil {
		return err
	}
	a.Hasher = oauth.NewHasher(key)
	if a.Config.PasswordCost != (oauth.Cost{}) {
		a.Hasher.WithCost(a.Config.PasswordCost)
	}
	if a.OAuth, err = oauth.NewServer(ctx, a.DB, a.Hasher); err != nil {
		return err
	}
	if a.Config.Redis != "" {
		// A malformed URL stops the start; a Redis that does not answer
		// does not: each instance enforces its share until it does.
		r, err := ratelimit.OpenRedis(a.Config.Redis)
		if err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
		// The instances that count each other for their shares are those
		// of this database, named by a value they all read from it.
		group, err := a.DB.Secret(ctx, "ratelimit_group")
		if err != nil {
			return err
		}
		a.Limiter = ratelimit.NewFailover(ctx, r, ratelimit.FailoverConfig{Logger: a.Config.Logger,
			Instances: a.Config.RedisInstances, Group: hex.EncodeToString(group[:8])})
	} else {
		a.Limiter = ratelimit.NewMemory()
	}
	senders, err := outbox.Senders(a.Config.SMTP, a.Config.SMSGateway, a.Config.dataDir())
	if err != nil {
		return err
	}
	a.Outbox = &outbox.Worker{Store: a.DB, Senders: senders, Logger: a.Config.Logger, Clock: func() time.Time { return a.DB.Clock() }}
	a.Sequencer = &events.Sequencer{Store: a.DB, Logger: a.Config.Logger, Clock: func() time.Time { return a.DB.Clock() }}
	a.Rollup = &events.Rollup{Store: a.DB, Logger: a.Config.Logger, Clock: func() time.Time { return a.DB.Clock() }}
	a.Tiers = &events.TierKeeper{Store: a.DB, Logger: a.Config.Logger, Clock: func() time.Time { return a.DB.Clock() }}
	if a.Config.EventsNATS != "" {
		js, closeNATS, err := events.DialNATS(a.Config.EventsNATS)
		if err != nil {
			return err
		}
		a.closeNATS = closeNATS
		a.NATS = &events.NATS{Store: a.DB, JS: js, Logger: a.Config.Logger, Clock: func() time.Time { return a.DB.Clock() },
			Stream: a.Config.EventsNATSStream, Prefix: a.Config.EventsNATSPrefix}
	}
	a.initWebhooks()
	// The members' rotating codes are keyed by a secret of their own, so
	// no other use of a key can forge one.
	codeKey, err := a.DB.Secret(ctx, "member_code")
	if err != nil {
		return err
	}
	a.Services = loyalty.NewServices(a.DB, loyalty.ServiceOptions{Hash: a.Hasher, Notify: a.Outbox.Wake,
		ResetURL: a.Config.ResetURL, WebhookGuard: a.webhookGuard, MemberCodeKey: codeKey})
	a.Imports = &loyalty.ImportWorker{Logger: a.Config.Logger, Clock: func() time.Time { return a.DB.Clock() }}
	a.Services.Imports = &loyalty.ImportService{Services: a.Services, Store: a.DB, Wake: a.Imports.Wake}
	a.Imports.Imports = a.Services.Imports
	// A read of the feed finds the tier.changed of the transactions it shows.
	a.Services.Events.KeepTiers = a.Tiers.CatchUp
	a.Points = &loyalty.PointsScheduler{Store: a.DB, Holder: loyalty.NewID(), Logger: a.Config.Logger}
	// Campaign messages carry an unsubscribe link signed by a key of its
	// own, to the page at the service's public address (the listen
	// address when none is set, as on a laptop).
	unsubKey, err := a.DB.Secret(ctx, "unsubscribe")
	if err != nil {
		return err
	}
	a.UnsubscribeKey = unsubKey
	a.Campaigns = &loyalty.CampaignRunner{Store: a.DB, Holder: loyalty.NewID(), Logger: a.Config.Logger,
		UnsubscribeKey: unsubKey, UnsubscribeURL: a.Config.publicBase() + "/unsubscribe", Notify: a.Outbox.Wake,
		Rate: a.Config.CampaignRate}
	a.Automations = &loyalty.AutomationRunner{Store: a.DB, Holder: loyalty.NewID(), Logger: a.Config.Logger, Messages: a.Campaigns}
	a.Admin = &loyalty.AdminService{Store: a.DB, Hash: a.Hasher, Notify: a.Outbox.Wake}
	if p, ok := a.Limiter.(ratelimit.Peeker); ok {
		a.Guesses = &ratelimit.Guesses{Limiter: p, Limit: a.Config.Limits.Guesses}
		if len(a.Config.TrustedNetworks) > 0 {
			if a.Guesses.Trusted, err = web.ParseProxies(a.Config.TrustedNetworks); err != nil {
				return fmt.Errorf("trusted networks: %w", err)
			}
		}
	}
	a.API = &httpapi.Server{
		Guesses:  a.Guesses,
		Services: a.Services,
		Store:    a.DB,
		OAuth:    a.OAuth,
		Limiter:  a.Limiter,
		Limits:   a.Config.Limits,
		Logger:   a.Config.Logger,
		ImageDir: filepath.Join(a.Config.dataDir(), "images"),
	}
	a.API.WakeWebhooks = a.Webhooks.Wake
	if a.API.Passes, err = a.Config.passes(); err != nil {
		return err
	}
	if a.API.Passes != nil {
		a.API.Passes.Profiles = a.DB
	}
	if err := a.initWeb(); err != nil {
		return err
	}
	a.handler = a.Web.RequireHTTPS(a.API.Handler())
	return nil
}

// Close releases the database and the limiter.
func (a *App) Close() error {
	var errs []error
	if a.stopOutbox != nil {
		a.stopOutbox()
	}
	for _, stop := range a.stopEvents {
		stop()
	}
	if a.closeNATS != nil {
		a.closeNATS()
	}
	if a.stopImport != nil {
		a.stopImport()
	}
	if a.stopPoints != nil {
		a.stopPoints()
	}
	if a.stopCampaigns != nil {
		a.stopCampaigns()
	}
	if a.stopAutomations != nil {
		a.stopAutomations()
	}
	if a.Limiter != nil {
		errs = append(errs, a.Limiter.Close())
	}
	if a.DB != nil {
		errs = append(errs, a.DB.Close())
	}
	return errors.Join(errs...)
}
