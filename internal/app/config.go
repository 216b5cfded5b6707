package app

import (
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/oauth"
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
