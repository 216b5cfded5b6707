package loyalty_test

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// notStreamed fails the test when the heap grew by half the file's size:
// holding the whole file would add all of it.
func notStreamed(t *testing.T, phase string, peak, base uint64, size int64) {
	t.Helper()
	if peak > base+uint64(size)/2 {
		t.Errorf("the %s's heap peaked at %d bytes, more than half the file's %d bytes above the %d before: not streamed",
			phase, peak, size, base)
	}
}

// rowsFile writes a transactions file of n rewards, spread over the
// customers, as it is read: the test never holds the file either.
func rowsFile(n int, customers []string) (io.Reader, *int64) {
	pr, pw := io.Pipe()
	size := new(int64)
	go func() {
		w := &countWriter{w: pw, n: size}
		fmt.Fprintln(w, "intent,customer.id,amount,created_at,transaction_details.external_order_id")
		day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "reward,%s,%d.%02d,%s,order-%08d\n", customers[i%len(customers)], 1+i%90, i%100,
				day.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), i)
		}
		pw.Close()
	}()
	return pr, size
}

type countWriter struct {
	w io.Writer
	n *int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	*c.n += int64(len(p))
	return c.w.Write(p)
}

// peakHeap samples the heap in use until stop is called, and returns the
// highest figure seen.
func peakHeap() (stop func() uint64) {
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			mu.Lock()
			peak = max(peak, m.HeapInuse)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// TestImportStreams100kRows uploads a 100,000-row file and reports the
// peak heap in use while it is received, stored and checked: the file is
// read and written one chunk at a time, so the heap stays far below the
// file's size. With LOYALTY_IMPORT_RUN=1 it also runs the import (one
// transaction per row: minutes, not for every test run) and reports the
// run's peak heap and its rows per second. Skipped with -short.
func TestImportStreams100kRows(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 100,000 rows; run without -short")
	}
	const rows = 100_000
	eachEngine(t, func(t *testing.T, w *world) {
		b := w.business(t, "CA")
		var customers []string
		for i := 0; i < 10; i++ {
			customers = append(customers, w.member(t, b, fmt.Sprintf("c%d@example.com", i)))
		}
		s, wk := w.importer()
		// Collect often, so that the heap in use is about what is held,
		// not garbage waiting for the next collection.
		defer debug.SetGCPercent(debug.SetGCPercent(10))
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)

		file, size := rowsFile(rows, customers)
		stop := peakHeap()
		start := time.Now()
		im, err := s.Upload(w.ctx, b, loyalty.ImportUpload{Kind: loyalty.ImportTransactions}, file)
		if err != nil {
			t.Fatal(err)
		}
		uploaded := time.Since(start)
		uploadPeak := stop()
		if im.TotalRows != rows || im.InvalidRows != 0 || im.FileSize != *size {
			t.Fatalf("uploaded %+v (file of %d bytes)", im, *size)
		}
		mib := func(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
		t.Logf("%d rows, file %s in %d chunks; heap in use before %s; peak during upload+preview (GOGC=10) %s (%v)",
			rows, mib(uint64(*size)), im.Chunks, mib(base.HeapInuse), mib(uploadPeak), uploaded.Round(time.Millisecond))
		notStreamed(t, "upload", uploadPeak, base.HeapInuse, *size)
		if os.Getenv("LOYALTY_IMPORT_RUN") == "" {
			return
		}
		if _, err := s.Start(w.ctx, b, im.ID); err != nil {
			t.Fatal(err)
		}
		stop = peakHeap()
		start = time.Now()
		if _, err := wk.Drain(w.ctx); err != nil {
			t.Fatal(err)
		}
		ran := time.Since(start)
		runPeak := stop()
		im, _ = s.Get(w.ctx, b, im.ID)
		if im.Done != rows || w.entries(t, b, loyalty.IntentReward) != rows {
			t.Fatalf("after the run: %+v, %d rewards", im, w.entries(t, b, loyalty.IntentReward))
		}
		t.Logf("the run: peak heap %s, %v, %.0f rows/s", mib(runPeak), ran.Round(time.Millisecond), float64(rows)/ran.Seconds())
		notStreamed(t, "run", runPeak, base.HeapInuse, *size)
	})
}
