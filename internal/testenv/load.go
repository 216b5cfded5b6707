package testenv

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// BurnCPU keeps every core busy until tb ends, as other work on a shared
// host would (`stress --cpu <cores>`): a spinning goroutine per core,
// which the scheduler preempts like any other, so the test's own
// goroutines (and, outside the process, the servers it talks to) get the
// CPU late and by turns.
func BurnCPU(tb testing.TB) {
	tb.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			x := uint64(1)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
				burnt.Add(x & 1) // keeps the arithmetic from being optimised away
			}
		})
	}
	tb.Cleanup(func() {
		close(stop)
		wg.Wait()
	})
}

var burnt atomic.Uint64
