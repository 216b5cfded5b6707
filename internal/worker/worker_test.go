package worker

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoopRunsAtOnceOnWakeAndStops: the first round runs at once, a wake
// runs one without waiting for the interval, and stop waits for the
// round under way.
func TestLoopRunsAtOnceOnWakeAndStops(t *testing.T) {
	var rounds atomic.Int32
	wake := make(chan struct{}, 1)
	ran := make(chan struct{}, 10)
	release := make(chan struct{})
	stop := Start(context.Background(), func(ctx context.Context) {
		Loop(ctx, time.Hour, wake, func(ctx context.Context) {
			if rounds.Add(1) == 2 {
				ran <- struct{}{}
				<-release // the second round is under way when stop is called
				return
			}
			ran <- struct{}{}
		})
	})
	<-ran
	wake <- struct{}{}
	<-ran
	stopped := make(chan struct{})
	go func() {
		stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("stop returned while a round was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-stopped
	if n := rounds.Load(); n != 2 {
		t.Errorf("%d rounds, want 2 (at once, then the wake)", n)
	}
}
