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
	"net"
	"net/http"
	"path/filepath"
	"strings"
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

// Config is everything the service is started with.
type Config struct {
	Addr    string // listen address, default 127.0.0.1:8080
	DB      string // postgres:// URL or SQLite path; default <DataDir>/loyalty.db
	DataDir string // default ./data
	Redis   string // redis:// URL for limits shared between instances; empty: in memory
	Logger  *slog.Logger
	Limits  httpapi.Limits // zero: the spec's limits
	// RedisInstances is how many instances share Redis's limits, assumed
	// by an instance that has not reached Redis since it started (once it
	// has, it counts them there): while Redis is down each instance
	// enforces limit ÷ instances. Zero: 1.
	RedisInstances int
	// DBListen (PostgreSQL) is a direct URL for the connections that need
	// a session (the one that listens for other instances' changes and the
	// rewards' group writer), when DB goes through a pooler in transaction
	// mode; empty: DB (see sqlstore.Options.ListenDSN).
	DBListen string
	// TLSCert and TLSKey (PEM files) make Serve answer HTTPS.
	TLSCert, TLSKey string
	// BehindProxy trusts X-Forwarded-Proto from TrustedProxies (CIDRs or
	// IPs; loopback when empty) to tell HTTPS from plain HTTP.
	BehindProxy    bool
	TrustedProxies []string
	// TrustedNetworks (CIDRs or IPs) have no per-address budget of failed
	// sign-ins (ratelimit.Guesses.Trusted): an app's backend, the
	// business's own network. Each account's limits still hold.
	TrustedNetworks []string
	// SMTP and SMSGateway name the outbox senders: "" or "file:" writes
	// under <DataDir>/outbox, smtp://host:port sends e-mail by SMTP, an
	// http(s) URL posts text messages to a gateway.
	SMTP       string
	SMSGateway string
	// PublicURL is the service's address as people reach it, for links in
	// the portals' e-mails (invitations, password resets); none when empty.
	PublicURL string
	// ResetURL is the page of the business's app that a PIN-reset message
	// links to, with the token as its token query parameter; none when empty.
	ResetURL string
	// CampaignRate is how many campaign recipients are reached per
	// second, across every campaign (loyalty.DefaultCampaignRate when 0).
	CampaignRate float64
	// EventsNATS, when set, is the NATS server (nats://host:port) the
	// events are published to, on JetStream.
	EventsNATS string
	// EventsNATSStream and EventsNATSPrefix are the stream and the
	// subjects' first token it publishes to; default LOYALTY_EVENTS and
	// loyalty (events.NATS).
	EventsNATSStream, EventsNATSPrefix string
	// Webhooks configures webhook deliveries.
	Webhooks WebhookConfig
	// Passes names the keys of the members' wallet passes; none offered
	// when empty.
	Passes PassConfig
	// PasswordCost, when set, is the argon2id cost of the password and PIN
	// hashes this process makes (oauth.DefaultCost otherwise). No command
	// line flag sets it: tests lower it, since a hash records its cost and
	// verifies at it, and a test process signs in thousands of times.
	PasswordCost oauth.Cost
	// NoOutbox keeps this process from delivering messages and running
	// imports (admin commands).
	NoOutbox bool
	// MustExist makes Open fail with ErrNoDatabase rather than create a
	// database: a missing SQLite file, or a database without Loyalty's
	// tables (support's commands, so that a wrong directory or URL does not
	// quietly start a new, empty service).
	MustExist bool
	// Announce, when set, is given the start banner instead of the JSON
	// "listening" log line.
	Announce func(Banner)
	// Program is how a person runs this binary (./loyalty, or go run
	// ./cmd/loyalty), for the commands the banner suggests; default loyalty.
	Program string
	// TokenCache is how long this process may reuse what it read for an
	// access token (the token, its key, its business's rules) while it
	// cannot hear the changes of other instances sharing the database
	// (PostgreSQL's listening connection down, or SQLite's count of
	// changes unreadable; while it hears them, a minute): the longest a token revoked, or rules changed,
	// elsewhere can go unseen here. Zero means DefaultTokenCache; a
	// negative value reads every time.
	TokenCache time.Duration
}

// DefaultTokenCache is Config.TokenCache's default.
const DefaultTokenCache = time.Second

// dataDir is the data directory, ./data by default.
func (c Config) dataDir() string {
	if c.DataDir == "" {
		return "data"
	}
	return c.DataDir
}

// DSN returns the database the config names.
func (c Config) DSN() string {
	if c.DB != "" {
		return c.DB
	}
	dir := c.DataDir
	if dir == "" {
		dir = "data"
	}
	return filepath.Join(dir, "loyalty.db")
}

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

// publicBase is the service's address for links in messages sent with no
// request at hand: PublicURL, else the listen address.
func (c Config) publicBase() string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	addr := c.Addr
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	scheme := "http"
	if c.TLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + addr
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

// Handler is the service's HTTP handler. Asking for it starts the outbox
// worker (once), after the caller had its chance to configure the app.
func (a *App) Handler() http.Handler {
	a.startOutbox()
	return a.handler
}

// startOutbox starts delivering messages, once, unless NoOutbox is set.
func (a *App) startOutbox() {
	a.outboxOnce.Do(func() {
		if !a.Config.NoOutbox && a.Outbox != nil {
			a.stopOutbox = a.Outbox.Start(context.Background())
			a.stopEvents = append(a.stopEvents, a.Sequencer.Start(context.Background()), a.Rollup.Start(context.Background()),
				a.Tiers.Start(context.Background()))
			a.stopEvents = append(a.stopEvents, a.Fanout.Start(context.Background()), a.Webhooks.Start(context.Background()))
			if a.NATS != nil {
				a.stopEvents = append(a.stopEvents, a.NATS.Start(context.Background()))
			}
			a.stopImport = a.Imports.Start(context.Background())
		}
		if a.Points != nil {
			a.stopPoints = a.Points.Start(context.Background())
		}
		if a.Campaigns != nil {
			a.stopCampaigns = a.Campaigns.Start(context.Background())
		}
		if a.Automations != nil {
			a.stopAutomations = a.Automations.Start(context.Background())
		}
	})
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

// Serve answers HTTP on ln until ctx is done, then stops accepting and lets
// in-flight requests finish (up to 30 seconds).
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.Config.Logger.Handler(), slog.LevelWarn),
	}
	a.startOutbox()
	errc := make(chan error, 1)
	go func() { errc <- a.serve(srv, ln) }()
	a.announce(ctx, ln)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.Config.Logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
