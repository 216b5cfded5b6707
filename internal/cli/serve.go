package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// natsToken is a JetStream stream name or subject token this service
// takes: no separators or wildcards.
var natsToken = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func serveCmd(stderr io.Writer, program string) *ucli.Command {
	return &ucli.Command{
		Name:  "serve",
		Usage: "run the HTTP API and the portals (creates the database and applies migrations first)",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "listen address", Sources: ucli.EnvVars("LOYALTY_ADDR")},
			&ucli.StringFlag{Name: "tls-cert", Usage: "PEM certificate (chain) file: serve HTTPS", Sources: ucli.EnvVars("LOYALTY_TLS_CERT")},
			&ucli.StringFlag{Name: "tls-key", Usage: "PEM private key file of --tls-cert", Sources: ucli.EnvVars("LOYALTY_TLS_KEY")},
			&ucli.BoolFlag{Name: "behind-proxy", Usage: "TLS ends at a proxy: trust its X-Forwarded-Proto and X-Forwarded-For", Sources: ucli.EnvVars("LOYALTY_BEHIND_PROXY")},
			&ucli.StringSliceFlag{Name: "trusted-networks", Usage: "networks (CIDRs or IPs, comma-separated) with no per-address budget of failed sign-ins, such as an app backend's", Sources: ucli.EnvVars("LOYALTY_TRUSTED_NETWORKS")},
			&ucli.StringSliceFlag{Name: "trusted-proxies", Usage: "proxy addresses (CIDRs or IPs, comma-separated) trusted with --behind-proxy (default loopback)", Sources: ucli.EnvVars("LOYALTY_TRUSTED_PROXIES")},
			&ucli.StringFlag{Name: "redis", Usage: "redis:// URL to share rate limits between instances", Sources: ucli.EnvVars("LOYALTY_REDIS")},
			&ucli.IntFlag{Name: "redis-instances", Value: 1, Usage: "how many instances share --redis: while Redis is down each enforces its share of every limit, counting the instances it last saw in Redis, or this many if it has not reached Redis since it started", Sources: ucli.EnvVars("LOYALTY_REDIS_INSTANCES")},
			&ucli.StringFlag{Name: "smtp", Usage: "smtp://[user:pass@]host:port[?from=ADDR] (STARTTLS when offered) or smtps://... (implicit TLS, port 465) for e-mail (default file: writes .eml files under <data-dir>/outbox)", Sources: ucli.EnvVars("LOYALTY_SMTP")},
			&ucli.StringFlag{Name: "sms-gateway", Usage: "http(s) URL receiving a JSON POST {to, body} per text message (default file: writes .txt files under <data-dir>/outbox)", Sources: ucli.EnvVars("LOYALTY_SMS_GATEWAY")},
			&ucli.FloatFlag{Name: "campaign-rate", Value: loyalty.DefaultCampaignRate, Usage: "campaign recipients reached per second, across every campaign", Sources: ucli.EnvVars("LOYALTY_CAMPAIGN_RATE")},
			&ucli.StringFlag{Name: "reset-url", Usage: "https URL of the page PIN-reset e-mails link to (the token is added as ?token=)", Sources: ucli.EnvVars("LOYALTY_RESET_URL")},
			&ucli.StringFlag{Name: "public-url", Usage: "the service's address as people reach it (https://loyalty.example.com): links in portal e-mails (invitations, password resets); default: none, the e-mails name the page", Sources: ucli.EnvVars("LOYALTY_PUBLIC_URL")},
			&ucli.StringFlag{Name: "events-nats", Usage: "nats:// URL of a NATS server with JetStream: every event is published to subject loyalty.<business_id>.<type> of stream LOYALTY_EVENTS (created if missing), with Nats-Msg-Id = the event id", Sources: ucli.EnvVars("LOYALTY_EVENTS_NATS")},
			&ucli.StringFlag{Name: "events-nats-stream", Value: "LOYALTY_EVENTS:loyalty", Usage: "STREAM:PREFIX, the JetStream stream --events-nats publishes to and its subjects' first token: installations sharing a NATS server need one each (streams' subjects may not overlap)", Sources: ucli.EnvVars("LOYALTY_EVENTS_NATS_STREAM")},
			&ucli.BoolFlag{Name: "webhooks-allow-private", Usage: "let webhook endpoints be on loopback, private and link-local addresses, and on plain http (development and tests only: it opens the service's own network to anyone who can create an endpoint)", Sources: ucli.EnvVars("LOYALTY_WEBHOOKS_ALLOW_PRIVATE")},
			&ucli.StringFlag{Name: "db-listen", Usage: "PostgreSQL: a direct postgres:// URL (several hosts allowed; the writable one is used) for the two connections that need a session (the one that listens for other instances' changes, and the rewards' group writer, whose statement stays prepared), needed when --db goes through a pooler in transaction mode such as pgbouncer (default: --db)", Sources: ucli.EnvVars("LOYALTY_DB_LISTEN")},
			&ucli.DurationFlag{Name: "token-cache", Value: app.DefaultTokenCache, Usage: "how long an access token's lookup is reused while this instance cannot hear other instances' changes (PostgreSQL's listening connection down, or SQLite's count of changes unreadable; while it hears them, a minute): the longest a revocation or rules change made elsewhere goes unseen here (0: look up every request)", Sources: ucli.EnvVars("LOYALTY_TOKEN_CACHE")},
			&ucli.StringFlag{Name: "apple-pass-cert", Usage: "PEM certificate of an Apple Wallet pass type: members may add their card to Apple Wallet (with --apple-pass-key, --apple-pass-wwdr, --apple-pass-type-id and --apple-team-id; default: no Apple pass)", Sources: ucli.EnvVars("LOYALTY_APPLE_PASS_CERT")},
			&ucli.StringFlag{Name: "apple-pass-key", Usage: "PEM private key (unencrypted) of --apple-pass-cert", Sources: ucli.EnvVars("LOYALTY_APPLE_PASS_KEY")},
			&ucli.StringFlag{Name: "apple-pass-wwdr", Usage: "Apple's WWDR intermediate certificate (PEM or DER) that issued --apple-pass-cert", Sources: ucli.EnvVars("LOYALTY_APPLE_PASS_WWDR")},
			&ucli.StringFlag{Name: "apple-pass-type-id", Usage: "the pass type identifier of --apple-pass-cert (pass.com.example.loyalty)", Sources: ucli.EnvVars("LOYALTY_APPLE_PASS_TYPE_ID")},
			&ucli.StringFlag{Name: "apple-team-id", Usage: "the Apple developer team identifier of --apple-pass-cert", Sources: ucli.EnvVars("LOYALTY_APPLE_TEAM_ID")},
			&ucli.StringFlag{Name: "google-wallet-issuer-id", Usage: "Google Wallet issuer id: members may save their card to Google Wallet (with --google-wallet-class-id and --google-wallet-key; default: no Google pass)", Sources: ucli.EnvVars("LOYALTY_GOOGLE_WALLET_ISSUER_ID")},
			&ucli.StringFlag{Name: "google-wallet-class-id", Usage: "the issuer's loyalty class the cards belong to (its id after \"<issuer id>.\")", Sources: ucli.EnvVars("LOYALTY_GOOGLE_WALLET_CLASS_ID")},
			&ucli.StringFlag{Name: "google-wallet-key", Usage: "JSON key file of the Google service account that signs the Save to Google Wallet links", Sources: ucli.EnvVars("LOYALTY_GOOGLE_WALLET_KEY")},
		},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			cfg, err := config(cmd, stderr)
			if err != nil {
				return err
			}
			cfg.Addr, cfg.Redis, cfg.DBListen = cmd.String("addr"), cmd.String("redis"), cmd.String("db-listen")
			if cfg.RedisInstances = int(cmd.Int("redis-instances")); cfg.RedisInstances < 1 {
				return usagef("--redis-instances must be 1 or more, got %d", cfg.RedisInstances)
			}
			cfg.TLSCert, cfg.TLSKey = cmd.String("tls-cert"), cmd.String("tls-key")
			cfg.BehindProxy, cfg.TrustedProxies = cmd.Bool("behind-proxy"), cmd.StringSlice("trusted-proxies")
			cfg.TrustedNetworks = cmd.StringSlice("trusted-networks")
			cfg.SMTP, cfg.SMSGateway = cmd.String("smtp"), cmd.String("sms-gateway")
			cfg.ResetURL, cfg.PublicURL = cmd.String("reset-url"), strings.TrimRight(cmd.String("public-url"), "/")
			if cfg.CampaignRate = cmd.Float("campaign-rate"); cfg.CampaignRate <= 0 {
				return usagef("--campaign-rate must be more than 0, got %v", cfg.CampaignRate)
			}
			cfg.Program, cfg.EventsNATS = program, cmd.String("events-nats")
			cfg.Webhooks.AllowPrivate = cmd.Bool("webhooks-allow-private")
			cfg.Passes = app.PassConfig{AppleCert: cmd.String("apple-pass-cert"), AppleKey: cmd.String("apple-pass-key"),
				AppleWWDR: cmd.String("apple-pass-wwdr"), ApplePassTypeID: cmd.String("apple-pass-type-id"),
				AppleTeamID: cmd.String("apple-team-id"), GoogleIssuerID: cmd.String("google-wallet-issuer-id"),
				GoogleClassID: cmd.String("google-wallet-class-id"), GoogleKey: cmd.String("google-wallet-key")}
			if u, err := url.Parse(cfg.EventsNATS); cfg.EventsNATS != "" && (err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "") {
				return usagef("--events-nats must be a nats:// or tls:// URL, got %q", cfg.EventsNATS)
			}
			stream, prefix, _ := strings.Cut(cmd.String("events-nats-stream"), ":")
			if !natsToken.MatchString(stream) || !natsToken.MatchString(prefix) {
				return usagef("--events-nats-stream must be STREAM:PREFIX, each of letters, digits, - and _, got %q", cmd.String("events-nats-stream"))
			}
			cfg.EventsNATSStream, cfg.EventsNATSPrefix = stream, prefix
			if cfg.TokenCache = cmd.Duration("token-cache"); cfg.TokenCache <= 0 {
				cfg.TokenCache = -1
			}
			if u, err := url.Parse(cfg.ResetURL); cfg.ResetURL != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "") {
				return usagef("--reset-url must be an absolute http(s) URL, got %q", cfg.ResetURL)
			}
			if u, err := url.Parse(cfg.PublicURL); cfg.PublicURL != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "") {
				return usagef("--public-url must be an absolute http(s) URL, got %q", cfg.PublicURL)
			}
			if cfg.DBListen != "" {
				l, err := sqlstore.ParseDSN(cfg.DBListen)
				if d, _ := sqlstore.ParseDSN(cfg.DSN()); err != nil || l.Dialect != sqlstore.Postgres || d.Dialect != sqlstore.Postgres {
					return usagef("--db-listen must be a postgres:// URL, with a PostgreSQL --db, got %q", sqlstore.RedactURL(cfg.DBListen))
				}
			}
			if isTerminal(stderr) {
				cfg.Announce = func(b app.Banner) { fmt.Fprint(stderr, bannerText(b)) }
			}
			slog.SetDefault(cfg.Logger)
			a, err := app.Open(ctx, cfg)
			if err != nil {
				return err
			}
			defer a.Close()
			ln, err := net.Listen("tcp", cfg.Addr)
			if err != nil {
				return err
			}
			return a.Serve(ctx, ln)
		},
	}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// bannerText is the start banner for a person at a terminal.
func bannerText(b app.Banner) string {
	redis := b.Redis
	if redis == "" {
		redis = "not used: rate limits are kept in this process"
	}
	var s strings.Builder
	fmt.Fprintf(&s, "Loyalty is listening on %s\n", b.URL)
	fmt.Fprintf(&s, "  database  %s\n", b.Database)
	fmt.Fprintf(&s, "  e-mail    %s\n", b.Email)
	fmt.Fprintf(&s, "  sms       %s\n", b.SMS)
	fmt.Fprintf(&s, "  redis     %s\n", redis)
	fmt.Fprintf(&s, "  portals   %s\n", strings.Join(b.Portals, "  "))
	if b.Next != "" {
		fmt.Fprintf(&s, "\nThe database has no business yet. Create the first one, with its owner, in another terminal:\n  %s\n", b.Next)
		fmt.Fprintf(&s, "then open %s and sign in with the owner you created.\n", b.Console)
		prefix, _, _ := strings.Cut(b.Next, "admin business create")
		fmt.Fprintf(&s, "For the support portal, create a support account:\n  %sadmin support create --email you@example.com --password '...'\n", prefix)
	} else {
		fmt.Fprintf(&s, "\nOpen %s and sign in with the owner you created (or a staff account).\n", b.Console)
	}
	fmt.Fprintf(&s, "Logs follow, one JSON line per request. Stop with Ctrl-C.\n")
	return s.String()
}
