package app

import (
	"context"
	"net"

	"github.com/loyalty/loyalty/internal/outbox"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// Banner is what serve tells at start: where it listens, what it uses and,
// on a new installation, what to do next. It holds no password.
type Banner struct {
	URL      string   // the service's base URL
	Database string   // sqlite:PATH or postgres://USER@HOST/DATABASE
	Dialect  string   // sqlstore.SQLite or sqlstore.Postgres
	Email    string   // where e-mails go: files in DIR, or the SMTP server
	SMS      string   // where text messages go: files in DIR, or the gateway
	Redis    string   // the Redis server sharing rate limits; empty: none
	Portals  []string // the developer, support and business portals
	Console  string   // the business console, where the owner signs in
	// Next is the command that creates the first business, set when the
	// database has none.
	Next string
}

// Database shows the database the app uses, without its password.
func (a *App) Database() string {
	d, err := sqlstore.ParseDSN(a.Config.DSN())
	if err != nil {
		return a.DB.Dialect()
	}
	return d.String()
}

// Banner describes the running service listening on ln.
func (a *App) Banner(ctx context.Context, ln net.Listener) Banner {
	scheme := "http"
	if a.Config.TLSCert != "" {
		scheme = "https"
	}
	base := scheme + "://" + ln.Addr().String()
	b := Banner{URL: base, Database: a.Database(), Dialect: a.DB.Dialect(),
		Email: outbox.Describe(a.Outbox.Senders[outbox.Email]), SMS: outbox.Describe(a.Outbox.Senders[outbox.SMS]),
		Redis:   redisShown(a.Config.Redis),
		Portals: []string{base + "/developers", base + "/support", base + "/business"}, Console: base + "/business"}
	if empty, err := a.Admin.Empty(ctx); err == nil && empty {
		program := a.Config.Program
		if program == "" {
			program = "loyalty"
		}
		b.Next = program + " " + a.dbFlag() + "admin business create --name 'Corner Cafe' --loyalty-type per_spend " +
			"--owner-email owner@cafe.example --owner-password 'change-me-now'"
	}
	return b
}

// dbFlag is the flag, followed by a space, that points another command at
// this app's database; empty for the default.
func (a *App) dbFlag() string {
	switch {
	case a.Config.DB != "":
		return "--db '" + a.Database() + "' "
	case a.Config.dataDir() != "data":
		return "--data-dir '" + a.Config.dataDir() + "' "
	}
	return ""
}

// announce tells the start banner: to Config.Announce, or as one JSON log
// line.
func (a *App) announce(ctx context.Context, ln net.Listener) {
	b := a.Banner(ctx, ln)
	if a.Config.Announce != nil {
		a.Config.Announce(b)
		return
	}
	args := []any{"addr", ln.Addr().String(), "url", b.URL, "db", b.Dialect, "database", b.Database,
		"email", b.Email, "sms", b.SMS, "redis", b.Redis, "portals", b.Portals, "console", b.Console}
	if b.Next != "" {
		args = append(args, "empty", true, "next", b.Next)
	}
	a.Config.Logger.Info("listening", args...)
}

// redisShown shows the Redis URL without its password; empty when none.
func redisShown(url string) string {
	if url == "" {
		return ""
	}
	return sqlstore.RedactURL(url)
}
