package loyalty_test

import (
	"context"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/sqlstore"
	"github.com/loyalty/loyalty/internal/testenv"
)

// BenchmarkAutomationScan passes a birthday automation (“on a member's
// birthday → tag”) over every member of a business on PostgreSQL, as the
// runner does: the candidates a batch at a time by the id cursor, and a
// run started, with its action, for each member whose birthday is today
// (a 365th of them). Each operation is one whole pass of a new automation
// over 100,000 or 1,000,000 members; peak-heap-MB is the most the
// process's heap held during the pass (sampled every 10 ms, after a
// collection before it), which the issue asks to stay bounded: the same
// at both sizes. repass-ms is the pass after it, which the runner makes
// every minute: the same members, none of them new (outside the
// operation's time).
//
//	go test ./internal/loyalty -run '^$' -bench AutomationScan -benchtime 1x -count 1 -timeout 60m
func BenchmarkAutomationScan(b *testing.B) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		b.Skip("PostgreSQL")
	}
	ctx := context.Background()
	for _, n := range []int{100_000, 1_000_000} {
		b.Run("members="+strconv.Itoa(n), func(b *testing.B) {
			db := testenv.Open(b, sqlstore.Postgres)
			w := &world{ctx: ctx, db: db}
			biz := w.business(b, "US")
			// Birthdays spread over the year from today's: member g's is
			// today when g is a multiple of 365.
			today := time.Now().UTC()
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO users (id, email, created_at, updated_at)
				SELECT $1 || '-' || g, $1 || '-' || g || '@seed.example', now(), now() FROM generate_series(1, $2) g`, biz.ID, n); err != nil {
				b.Fatal(err)
			}
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO customers (business_id, user_id, email, birth_date, created_at, updated_at)
				SELECT $1, $1 || '-' || g, $1 || '-' || g || '@seed.example',
					to_char($3::date + ((g % 365) || ' days')::interval - interval '30 years', 'YYYY-MM-DD'), now(), now()
				FROM generate_series(1, $2) g`, biz.ID, n, today.Format("2006-01-02")); err != nil {
				b.Fatal(err)
			}
			if _, err := db.SQL().ExecContext(ctx, `ANALYZE customers`); err != nil {
				b.Fatal(err)
			}
			automations := &loyalty.AutomationService{Store: db}
			runner := &loyalty.AutomationRunner{Store: db, Holder: "bench", Batch: 500, Batches: 1_000_000, Every: time.Millisecond}
			var peak uint64
			var repass time.Duration
			for i := 0; b.Loop(); i++ {
				a, err := automations.Save(ctx, biz, "", loyalty.AutomationInput{Name: loyalty.Some("Birthday " + strconv.Itoa(i)),
					Enabled: loyalty.Some(true), Trigger: loyalty.Some(loyalty.AutomationTrigger{Type: loyalty.TriggerBirthday}),
					Actions: loyalty.Some([]loyalty.AutomationAction{{Type: loyalty.ActionAddTag, Tag: "birthday-" + strconv.Itoa(i)}})})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				stop := sampleHeap(&peak)
				_, err = runner.RunOnce(ctx)
				stop()
				if err != nil {
					b.Fatal(err)
				}
				runs, err := automations.Runs(ctx, a)
				if err != nil {
					b.Fatal(err)
				}
				if want := n / 365; runs[loyalty.RunDone] < want-1 || runs[loyalty.RunDone] > want+1 {
					b.Fatalf("the pass ran for %v, want about %d done", runs, want)
				}
				// The pass the runner makes every minute after it: the
				// same members, each with its run already started.
				b.StopTimer()
				time.Sleep(time.Second) // a pass's start is kept to the second
				again := time.Now()
				if _, err := runner.RunOnce(ctx); err != nil {
					b.Fatal(err)
				}
				repass += time.Since(again)
				b.StartTimer()
				if after, err := automations.Runs(ctx, a); err != nil || after[loyalty.RunDone] != runs[loyalty.RunDone] {
					b.Fatalf("the second pass: %v (%v), want the first pass's %v", after, err, runs)
				}
				// The next operation's automation is the only one enabled.
				if _, err := automations.Save(ctx, biz, strconv.FormatInt(a.ID, 10), loyalty.AutomationInput{Enabled: loyalty.Some(false)}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(repass.Milliseconds())/float64(b.N), "repass-ms")
		})
	}
}

// sampleHeap records into peak the most heap in use until stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			*peak = max(*peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// BenchmarkLapseRepass is the pass a no-visit automation (“no visit for
// 30 days → tag”) makes every minute over a business on PostgreSQL whose
// 10,000 members have all lapsed, after the pass that ran for each of
// them: half never visited, half last visited 40 days ago. Each operation
// is one whole pass, which starts nothing.
//
//	go test ./internal/loyalty -run '^$' -bench LapseRepass -benchtime 2x -count 1
func BenchmarkLapseRepass(b *testing.B) {
	if !slices.Contains(testenv.Engines(), sqlstore.Postgres) {
		b.Skip("PostgreSQL")
	}
	const n = 10_000
	ctx := context.Background()
	db := testenv.Open(b, sqlstore.Postgres)
	w := &world{ctx: ctx, db: db}
	biz := w.business(b, "US")
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO users (id, email, created_at, updated_at)
		SELECT $1 || '-' || g, $1 || '-' || g || '@seed.example', now(), now() FROM generate_series(1, $2) g`, biz.ID, n); err != nil {
		b.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO customers (business_id, user_id, email, last_visit_at, created_at, updated_at)
		SELECT $1, $1 || '-' || g, $1 || '-' || g || '@seed.example', CASE WHEN g % 2 = 0 THEN now() - interval '40 days' END,
			now() - interval '100 days', now()
		FROM generate_series(1, $2) g`, biz.ID, n); err != nil {
		b.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `ANALYZE customers`); err != nil {
		b.Fatal(err)
	}
	automations := &loyalty.AutomationService{Store: db}
	a, err := automations.Save(ctx, biz, "", loyalty.AutomationInput{Name: loyalty.Some("We miss you"), Enabled: loyalty.Some(true),
		Trigger: loyalty.Some(loyalty.AutomationTrigger{Type: loyalty.TriggerNoVisit, Days: 30}),
		Actions: loyalty.Some([]loyalty.AutomationAction{{Type: loyalty.ActionAddTag, Tag: "lapsed"}})})
	if err != nil {
		b.Fatal(err)
	}
	runner := &loyalty.AutomationRunner{Store: db, Holder: "bench", Batch: 500, Batches: 1_000_000, Every: time.Millisecond}
	if _, err := runner.RunOnce(ctx); err != nil {
		b.Fatal(err)
	}
	runs, err := automations.Runs(ctx, a)
	if err != nil || runs[loyalty.RunDone] != n {
		b.Fatalf("the first pass ran for %v (%v), want %d done", runs, err, n)
	}
	for b.Loop() {
		b.StopTimer()
		time.Sleep(time.Second) // a pass's start is kept to the second
		b.StartTimer()
		if _, err := runner.RunOnce(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if after, err := automations.Runs(ctx, a); err != nil || after[loyalty.RunDone] != n || len(after) != 1 {
		b.Fatalf("after the passes: %v (%v), want %d done", after, err, n)
	}
}
