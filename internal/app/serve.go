package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

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
