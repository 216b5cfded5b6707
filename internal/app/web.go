package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"

	"github.com/loyalty/loyalty/internal/console"
	"github.com/loyalty/loyalty/internal/wallet"
	"github.com/loyalty/loyalty/internal/web"
)

// initWeb builds the server-rendered pages and hangs them on the API's mux.
func (a *App) initWeb() error {
	c := a.Config
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return fmt.Errorf("https: --tls-cert and --tls-key go together")
	}
	if c.TLSCert != "" {
		// Fail at start, not at the first connection.
		if _, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey); err != nil {
			return fmt.Errorf("https: %w", err)
		}
	}
	proxies, err := web.ParseProxies(c.TrustedProxies)
	if err != nil {
		return err
	}
	a.Web, err = web.New(web.Config{
		OAuth:     a.OAuth,
		Admin:     a.Admin,
		Store:     a.DB,
		Customers: a.Services.Customers,
		Consents:  a.Services.Consents, UnsubscribeKey: a.UnsubscribeKey,
		Desk:      &console.CustomerDesk{Services: a.Services, Store: a.DB},
		Program:   &console.ProgramDesk{Services: a.Services, Store: a.DB},
		Marketing: &console.MarketingDesk{Services: a.Services, Store: a.DB, Messages: a.Campaigns},
		Wallet:    &wallet.Desk{Services: a.Services, Store: a.DB},
		Images:    a.API,
		Console: console.New(a.DB, console.Options{Admin: a.Admin, Apps: a.OAuth, Hash: a.Hasher,
			Notify: a.Outbox.Wake, Verify: func(ctx context.Context, kind, email, password string) error {
				_, err := a.OAuth.SignIn(ctx, kind, email, password)
				return err
			}}),
		PublicURL: c.PublicURL,
		Limiter:   a.Limiter,
		Guesses:   a.Guesses,
		Transport: web.Transport{BehindProxy: c.BehindProxy, TrustedProxies: proxies},
		Logger:    c.Logger,
	})
	if err != nil {
		return err
	}
	a.API.Pages = a.Web
	// The API's per-IP limits see the client the way the pages do.
	a.API.ClientIP = a.Web.Transport.ClientIP
	a.API.BaseURL = a.Web.Transport.BaseURL
	return nil
}

// serve answers on ln: HTTPS when a certificate is configured, plain
// HTTP otherwise.
func (a *App) serve(srv *http.Server, ln net.Listener) error {
	if a.Config.TLSCert == "" {
		return srv.Serve(ln)
	}
	srv.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	return srv.ServeTLS(ln, a.Config.TLSCert, a.Config.TLSKey)
}
