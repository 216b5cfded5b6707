// Package events keeps the event log moving outside requests: it numbers
// committed events in the background (so deliveries follow without anyone
// reading GET /events), removes events past their retention, and
// publishes the numbered events to NATS JetStream.
package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/worker"
)

// Sequencer numbers every business's committed events in the background
// and prunes the ones older than loyalty.EventRetention. Several
// instances may run one each: the store's numbering takes a business's
// sequence row, so they take turns.
type Sequencer struct {
	Store  loyalty.EventStore
	Logger *slog.Logger
	Clock  func() time.Time
	// Every is how often it looks for events to number; default 200ms.
	Every time.Duration
	// PruneEvery is how often it prunes; default an hour.
	PruneEvery time.Duration
}

// Start runs the sequencer in the background until stop is called; stop
// waits for the round under way to finish.
func (s *Sequencer) Start(ctx context.Context) (stop func()) { return worker.Start(ctx, s.Run) }

// Run numbers and prunes until ctx is done.
func (s *Sequencer) Run(ctx context.Context) {
	pruneEvery := orDefault(s.PruneEvery, time.Hour)
	var pruned time.Time
	worker.Loop(ctx, orDefault(s.Every, 200*time.Millisecond), nil, func(ctx context.Context) {
		if _, err := s.Sequence(ctx); err != nil && ctx.Err() == nil {
			s.logger().ErrorContext(ctx, "events: numbering failed", "err", err)
		}
		if now := s.now(); now.Sub(pruned) >= pruneEvery {
			if n, err := s.Store.PruneEvents(ctx, now.Add(-loyalty.EventRetention)); err != nil && ctx.Err() == nil {
				s.logger().ErrorContext(ctx, "events: pruning failed", "err", err)
			} else if n > 0 {
				s.logger().InfoContext(ctx, "events: pruned", "events", n)
			}
			pruned = now
		}
	})
}

// Sequence numbers the pending events of every business that has some,
// and returns how many it numbered.
func (s *Sequencer) Sequence(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		ids, err := s.Store.UnsequencedBusinesses(ctx, 100)
		if err != nil || len(ids) == 0 {
			return total, err
		}
		for _, id := range ids {
			n, err := s.Store.SequenceEvents(ctx, id)
			if err != nil {
				return total, err
			}
			total += n
		}
		if len(ids) < 100 {
			return total, nil
		}
	}
	return total, ctx.Err()
}

func (s *Sequencer) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

func (s *Sequencer) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
