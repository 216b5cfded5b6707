// Package worker runs the service's background loops (the outbox, the
// event followers, the imports, the points scheduler): started with the
// service, stopped with it, each stop waiting for the round under way.
package worker

import (
	"context"
	"time"
)

// Start runs run in the background until the stop it returns is called;
// stop cancels run's context and waits for run to return. run keeps the
// values of ctx but not its cancellation.
func Start(ctx context.Context, run func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// Loop calls round at once, then every interval after the last round
// ended or as soon as wake fires (nil: never), until ctx is done.
func Loop(ctx context.Context, every time.Duration, wake <-chan struct{}, round func(context.Context)) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
		round(ctx)
		t.Reset(every)
	}
}
