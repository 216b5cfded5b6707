// Package cli is the loyalty command line: serve, migrate and support's
// admin commands. Every command takes --db; admin commands take --json.
package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"

	ucli "github.com/urfave/cli/v3"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// Run runs the command line in args, writing results to stdout and
// messages to stderr.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return root(stdout, stderr).Run(ctx, args)
}

func root(stdout, stderr io.Writer) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "loyalty",
		Usage:     "an open-source loyalty and rewards service",
		Writer:    stdout,
		ErrWriter: stderr,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "db", Usage: "postgres://... URL or SQLite file (default <data-dir>/loyalty.db)", Sources: ucli.EnvVars("LOYALTY_DB")},
			&ucli.StringFlag{Name: "data-dir", Value: "data", Usage: "directory for the SQLite database, outbox and images", Sources: ucli.EnvVars("LOYALTY_DATA_DIR")},
			&ucli.BoolFlag{Name: "json", Usage: "print results as one JSON object"},
		},
		Commands: []*ucli.Command{serveCmd(stderr), migrateCmd(stdout, stderr), adminCmd(stdout, stderr)},
	}
	plainUsageErrors(cmd)
	return cmd
}

// plainUsageErrors makes a usage error (a missing required flag, an unknown
// flag) a plain error for the caller to print on stderr. By default the
// library prints the help text on stdout, which --json reserves for the
// result.
func plainUsageErrors(cmd *ucli.Command) {
	cmd.OnUsageError = func(_ context.Context, c *ucli.Command, err error, _ bool) error {
		return fmt.Errorf("%w (see %s --help)", err, c.FullName())
	}
	for _, sub := range cmd.Commands {
		plainUsageErrors(sub)
	}
}

// config reads the shared flags.
func config(cmd *ucli.Command, stderr io.Writer) app.Config {
	return app.Config{
		DB:      cmd.String("db"),
		DataDir: cmd.String("data-dir"),
		Logger:  slog.New(slog.NewJSONHandler(stderr, nil)),
	}
}

func serveCmd(stderr io.Writer) *ucli.Command {
	return &ucli.Command{
		Name:  "serve",
		Usage: "run the HTTP API",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "listen address", Sources: ucli.EnvVars("LOYALTY_ADDR")},
			&ucli.StringFlag{Name: "tls-cert", Usage: "PEM certificate (chain) file: serve HTTPS", Sources: ucli.EnvVars("LOYALTY_TLS_CERT")},
			&ucli.StringFlag{Name: "tls-key", Usage: "PEM private key file of --tls-cert", Sources: ucli.EnvVars("LOYALTY_TLS_KEY")},
			&ucli.BoolFlag{Name: "behind-proxy", Usage: "TLS ends at a proxy: trust its X-Forwarded-Proto and X-Forwarded-For", Sources: ucli.EnvVars("LOYALTY_BEHIND_PROXY")},
			&ucli.StringSliceFlag{Name: "trusted-proxies", Usage: "proxy addresses (CIDRs or IPs, comma-separated) trusted with --behind-proxy (default loopback)", Sources: ucli.EnvVars("LOYALTY_TRUSTED_PROXIES")},
			&ucli.StringFlag{Name: "redis", Usage: "redis:// URL to share rate limits between instances", Sources: ucli.EnvVars("LOYALTY_REDIS")},
			&ucli.StringFlag{Name: "smtp", Usage: "smtp://[user:pass@]host:port[?from=ADDR] (STARTTLS when offered) or smtps://... (implicit TLS, port 465) for e-mail (default file: writes .eml files under <data-dir>/outbox)", Sources: ucli.EnvVars("LOYALTY_SMTP")},
			&ucli.StringFlag{Name: "sms-gateway", Usage: "http(s) URL receiving a JSON POST {to, body} per text message (default file: writes .txt files under <data-dir>/outbox)", Sources: ucli.EnvVars("LOYALTY_SMS_GATEWAY")},
			&ucli.StringFlag{Name: "reset-url", Usage: "https URL of the page PIN-reset e-mails link to (the token is added as ?token=)", Sources: ucli.EnvVars("LOYALTY_RESET_URL")},
			&ucli.DurationFlag{Name: "token-cache", Value: app.DefaultTokenCache, Usage: "how long an access token's lookup is reused while this instance changes nothing: the longest a revocation or rules change made on another instance goes unseen here (0: look up every request)", Sources: ucli.EnvVars("LOYALTY_TOKEN_CACHE")},
		},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			cfg := config(cmd, stderr)
			cfg.Addr, cfg.Redis = cmd.String("addr"), cmd.String("redis")
			cfg.TLSCert, cfg.TLSKey = cmd.String("tls-cert"), cmd.String("tls-key")
			cfg.BehindProxy, cfg.TrustedProxies = cmd.Bool("behind-proxy"), cmd.StringSlice("trusted-proxies")
			cfg.SMTP, cfg.SMSGateway = cmd.String("smtp"), cmd.String("sms-gateway")
			cfg.ResetURL = cmd.String("reset-url")
			if cfg.TokenCache = cmd.Duration("token-cache"); cfg.TokenCache <= 0 {
				cfg.TokenCache = -1
			}
			if u, err := url.Parse(cfg.ResetURL); cfg.ResetURL != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "") {
				return fmt.Errorf("--reset-url must be an absolute http(s) URL, got %q", cfg.ResetURL)
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

func migrateCmd(stdout, stderr io.Writer) *ucli.Command {
	return &ucli.Command{
		Name:  "migrate",
		Usage: "apply database migrations and exit",
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			a, err := app.Open(ctx, config(cmd, stderr))
			if err != nil {
				return err
			}
			defer a.Close()
			return print(cmd, stdout, map[string]string{"status": "migrated", "db": a.DB.Dialect()}, "database migrated ("+a.DB.Dialect()+")")
		},
	}
}

// print writes v as JSON with --json, or the human line otherwise.
func print(cmd *ucli.Command, stdout io.Writer, v any, human string) error {
	if cmd.Bool("json") {
		return json.NewEncoder(stdout).Encode(v)
	}
	_, err := fmt.Fprintln(stdout, human)
	return err
}

// withApp opens the service for one admin command.
func withApp(ctx context.Context, cmd *ucli.Command, stderr io.Writer, fn func(*app.App) error) error {
	cfg := config(cmd, stderr)
	cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	a, err := app.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	return describe(fn(a))
}

// describe turns a validation error into a readable message.
func describe(err error) error {
	if e, ok := err.(*loyalty.Error); ok && len(e.Fields) > 0 {
		msg := ""
		for f, ms := range e.Fields {
			for _, m := range ms {
				msg += fmt.Sprintf("\n  %s: %s", f, m)
			}
		}
		return fmt.Errorf("invalid arguments:%s", msg)
	}
	return err
}

func adminCmd(stdout, stderr io.Writer) *ucli.Command {
	required := func(name, usage string) *ucli.StringFlag {
		return &ucli.StringFlag{Name: name, Usage: usage, Required: true}
	}
	return &ucli.Command{
		Name:  "admin",
		Usage: "support's tools",
		Commands: []*ucli.Command{
			{
				Name: "business", Usage: "manage businesses",
				Commands: []*ucli.Command{{
					Name: "create", Usage: "create a business with its owner and Application Key",
					Flags: []ucli.Flag{
						required("name", "business name"),
						required("loyalty-type", "per_spend or per_visit"),
						required("owner-email", "owner's sign-in e-mail"),
						required("owner-password", "owner's password (8 characters or more)"),
						&ucli.StringFlag{Name: "country", Value: "US", Usage: "ISO country for reading local phone numbers"},
						&ucli.StringFlag{Name: "coalition", Usage: "id of the coalition the business joins"},
					},
					Action: func(ctx context.Context, cmd *ucli.Command) error {
						return withApp(ctx, cmd, stderr, func(a *app.App) error {
							out, err := a.Admin.CreateBusiness(ctx, loyalty.NewBusiness{
								Name: cmd.String("name"), LoyaltyType: cmd.String("loyalty-type"), Country: cmd.String("country"),
								OwnerEmail: cmd.String("owner-email"), OwnerPassword: cmd.String("owner-password"),
								CoalitionID: cmd.String("coalition"),
							})
							if err != nil {
								return err
							}
							return print(cmd, stdout, map[string]string{"business_id": out.BusinessID, "application_key": out.ApplicationKey, "owner_id": out.OwnerID},
								fmt.Sprintf("business %s created\napplication key: %s\nowner: %s", out.BusinessID, out.ApplicationKey, out.OwnerID))
						})
					},
				}},
			},
			{
				Name: "coalition", Usage: "manage coalitions",
				Commands: []*ucli.Command{{
					Name: "create", Usage: "create a coalition with its Application Key",
					Flags: []ucli.Flag{required("name", "coalition name")},
					Action: func(ctx context.Context, cmd *ucli.Command) error {
						return withApp(ctx, cmd, stderr, func(a *app.App) error {
							out, err := a.Admin.CreateCoalition(ctx, cmd.String("name"))
							if err != nil {
								return err
							}
							return print(cmd, stdout, map[string]string{"coalition_id": out.CoalitionID, "application_key": out.ApplicationKey}, fmt.Sprintf("coalition %s created\napplication key: %s", out.CoalitionID, out.ApplicationKey))
						})
					},
				}},
			},
			supportCmd(stdout, stderr),
			{
				Name: "app", Usage: "manage registered apps",
				Commands: []*ucli.Command{
					{
						Name: "create", Usage: "register an app (its client secret is shown only now)",
						Flags: []ucli.Flag{
							required("name", "app name shown to users"),
							required("api", "business or user"),
							required("grant", "password or authorization_code"),
							&ucli.StringFlag{Name: "redirect-uri", Usage: "authorization callback URL"},
							&ucli.StringFlag{Name: "description", Usage: "app description"},
							&ucli.BoolFlag{Name: "approve", Usage: "approve the app at once"},
						},
						Action: func(ctx context.Context, cmd *ucli.Command) error {
							return withApp(ctx, cmd, stderr, func(a *app.App) error {
								out, err := a.OAuth.CreateApp(ctx, oauth.NewApp{
									Name: cmd.String("name"), API: cmd.String("api"), GrantType: cmd.String("grant"),
									RedirectURI: cmd.String("redirect-uri"), Description: cmd.String("description"), Approve: cmd.Bool("approve"),
								})
								if err != nil {
									return err
								}
								return print(cmd, stdout, out, fmt.Sprintf("client id: %s\nclient secret: %s\napproved: %t", out.ClientID, out.ClientSecret, out.Approved))
							})
						},
					},
					{
						Name: "approve", Usage: "approve an app", ArgsUsage: "CLIENT_ID",
						Action: func(ctx context.Context, cmd *ucli.Command) error {
							if cmd.Args().Len() != 1 {
								return fmt.Errorf("usage: loyalty admin app approve CLIENT_ID")
							}
							id := cmd.Args().First()
							return withApp(ctx, cmd, stderr, func(a *app.App) error {
								if err := a.OAuth.SetAppStatus(ctx, id, oauth.AppApproved); err != nil {
									return err
								}
								return print(cmd, stdout, map[string]any{"client_id": id, "approved": true}, "app "+id+" approved")
							})
						},
					},
				},
			},
		},
	}
}
