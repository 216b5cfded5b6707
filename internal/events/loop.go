package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
)

// follow drains every interval until ctx is done, logging what fails as
// what ("publishing to NATS"), then gives up the follower's leases.
func follow(ctx context.Context, every time.Duration, f *loyalty.Follower, drain func(context.Context) (int, error),
	logger *slog.Logger, what string) {
	if logger == nil {
		logger = slog.Default()
	}
	worker.Loop(ctx, every, nil, func(ctx context.Context) {
		if _, err := drain(ctx); err != nil && ctx.Err() == nil {
			logger.ErrorContext(ctx, "events: "+what+" failed", "err", err)
		}
	})
	if err := f.Release(context.WithoutCancel(ctx)); err != nil {
		logger.ErrorContext(ctx, "events: releasing the cursors after "+what+" failed", "err", err)
	}
}
